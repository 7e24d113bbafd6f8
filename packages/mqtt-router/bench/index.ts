// Benchmarks for @handoff/mqtt-router land with the code they measure.
console.log("@handoff/mqtt-router: no benchmarks yet");
