#!/usr/bin/env node
// Every app's command: app-kit's appBuild() bundles this file into the app's bin/<command>.js (one
// copy of the bins' code, and a published app carries it without depending on this private
// package). It runs the app built beside it, or says how to build it.
import { launch } from "./launch.js";

await launch(import.meta.url);
