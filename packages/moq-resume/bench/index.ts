// Benchmarks for @handoff/moq-resume land with the code they measure.
console.log("@handoff/moq-resume: no benchmarks yet");
