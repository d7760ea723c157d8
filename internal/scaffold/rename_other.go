//go:build !linux

package scaffold

// renameNoReplace renames the folder from to to, failing with an error
// that matches fs.ErrExist when something is at to. Without Linux's
// RENAME_NOREPLACE a folder appearing between the check and the rename
// can still be replaced if it is empty.
func renameNoReplace(from, to string) error {
	return renameChecked(from, to)
}
