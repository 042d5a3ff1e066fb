// Package runner runs the upstream Gateway API conformance suite exactly as its own TestConformance does:
// every option comes from the suite's flags (--conformance-options-file, --report-output, ...), which
// scripts/conformance.js passes. Nothing here selects, skips or changes a test.
package runner

import (
	"testing"

	"sigs.k8s.io/gateway-api/conformance"
)

func TestConformance(t *testing.T) {
	conformance.RunConformance(t)
}
