package host

// MaxSkillRead is what the external tests check skill_read's cut against;
// unexported because no caller needs it.
const MaxSkillRead = maxSkillRead
