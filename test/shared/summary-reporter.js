// Prints the plain closing line CI tools read in any language: "N passed, N failed, N skipped".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(
      `\njest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
