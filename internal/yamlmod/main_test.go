package yamlmod

// example is the module folder of examples/yamlmod, which the tests and
// examples load.
const example = "../../examples/yamlmod"
