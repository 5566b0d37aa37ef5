// Package schematest validates reports for tests: against the official
// mutation-testing-report-schema (pinned, in testdata/), with a real JSON
// Schema validator, plus what the schema cannot express (every killedBy
// and coveredBy id resolves to a test in testFiles, no absolute path
// anywhere). Only tests import it.
package schematest
