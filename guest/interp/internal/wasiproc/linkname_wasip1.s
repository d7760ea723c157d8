// Lets process.go declare functions without a body (linked by name).
