package agent

// Bounds the external tests check against; unexported because no caller
// needs them (issue 12: the public API says only what users need).
const (
	MaxPlanSize          = maxPlanSize
	MaxTranscriptRecord  = maxTranscriptRecord
	MaxTranscriptContent = maxTranscriptContent
	MaxEagerMCPTools     = maxEagerMCPTools
)
