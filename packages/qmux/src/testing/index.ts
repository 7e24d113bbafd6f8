// Workspace-only entry (`@handoff/qmux/testing`, not published): fast-check generators of frames
// and the raw frame encoder, for the relay's fuzzer. fast-check is a development dependency here.
export { qmuxFrameArb, transportParamsArb } from "./frame-arbitrary.js";
export { encodeQmuxFrame } from "../qmux-codec.js";
