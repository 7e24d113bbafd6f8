// Benchmarks for @handoff/seqlog land with the code they measure.
console.log("@handoff/seqlog: no benchmarks yet");
