package filecmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// The split expectations below are what GNU coreutils 9.1's split did
// on Debian 12 (LANG=C.UTF-8) with the same arguments and files, standard
// input being a regular file: its output, error output and status, and
// files, every file it created or changed with its content. They were
// recorded by running it.

// numbered is the lines "1" to "n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	return b.String()
}

var splitFiles = fixture{
	"in":      numbered(10),
	"ten":     "0123456789",
	"long":    "abcdefghijklm\nxy\nabc\nd\n",
	"z":       strings.Repeat("\x00", 5000),
	"nums":    numbered(30),
	"hundred": numbered(100),
	"xaa":     "1\n2\n3\n",
	"semi":    "a;b;c;d;e",
	"nul":     "a\x00b\x00c\x00d\x00",
	"empty":   "",
	"d/":      "",
	"old/xaa": "stale stale stale\n",
}

// splitCase is a split run and what it leaves: files are the files it
// created or changed; every other file must be as splitFiles made it.
type splitCase struct {
	args           []string
	stdin          string
	stdout, stderr string
	code           int
	files          map[string]string
}

var splitCases = []splitCase{
	{args: []string{"split", "-l", "3", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xab": "4\n5\n6\n", "xac": "7\n8\n9\n", "xad": "10\n"}},
	{args: []string{"split", "-b", "5", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "1\n2\n3", "xab": "\n4\n5\n", "xac": "6\n7\n8", "xad": "\n9\n10", "xae": "\n"}},
	{args: []string{"split", "-n", "3", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "1\n2\n3\n4", "xab": "\n5\n6\n7\n", "xac": "8\n9\n10\n"}},
	{args: []string{"split", "-n", "l/3", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "1\n2\n3\n4\n", "xab": "5\n6\n7\n", "xac": "8\n9\n10\n"}},
	{args: []string{"split", "-n", "2/3", "in"}, stdin: "", stdout: "\n5\n6\n7\n", stderr: "", code: 0, files: map[string]string{}},
	{args: []string{"split", "-n", "l/2/3", "in"}, stdin: "", stdout: "5\n6\n7\n", stderr: "", code: 0, files: map[string]string{}},
	{args: []string{"split", "-d", "-l", "4", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x00": "1\n2\n3\n4\n", "x01": "5\n6\n7\n8\n", "x02": "9\n10\n"}},
	{args: []string{"split", "--numeric-suffixes=5", "-l", "4", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x05": "1\n2\n3\n4\n", "x06": "5\n6\n7\n8\n", "x07": "9\n10\n"}},
	{args: []string{"split", "-x", "-l", "1", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x00": "1\n", "x01": "2\n", "x02": "3\n", "x03": "4\n", "x04": "5\n", "x05": "6\n", "x06": "7\n", "x07": "8\n", "x08": "9\n", "x09": "10\n"}},
	{args: []string{"split", "-a", "3", "-l", "5", "in", "p"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"paaa": "1\n2\n3\n4\n5\n", "paab": "6\n7\n8\n9\n10\n"}},
	{args: []string{"split", "--additional-suffix=.txt", "-l", "5", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa.txt": "1\n2\n3\n4\n5\n", "xab.txt": "6\n7\n8\n9\n10\n"}},
	{args: []string{"split", "-l", "5", "-"}, stdin: "1\n2\n3\n4\n5\n6\n7\n", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "1\n2\n3\n4\n5\n", "xab": "6\n7\n"}},
	{args: []string{"split", "-l", "abc", "in"}, stdin: "", stdout: "", stderr: "split: invalid number of lines: ‘abc’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "0", "in"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘0’: Numerical result out of range\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-l", "0", "in"}, stdin: "", stdout: "", stderr: "split: invalid number of lines: ‘0’: Numerical result out of range\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-a", "1", "-l", "1", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xa": "1\n", "xb": "2\n", "xc": "3\n", "xd": "4\n", "xe": "5\n", "xf": "6\n", "xg": "7\n", "xh": "8\n", "xi": "9\n", "xj": "10\n"}},
	{args: []string{"split", "-n", "3", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "012", "xab": "345", "xac": "6789"}},
	{args: []string{"split", "-n", "12", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "0", "xab": "1", "xac": "2", "xad": "3", "xae": "4", "xaf": "5", "xag": "6", "xah": "7", "xai": "8", "xaj": "9", "xak": "", "xal": ""}},
	{args: []string{"split", "-e", "-n", "12", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "0", "xab": "1", "xac": "2", "xad": "3", "xae": "4", "xaf": "5", "xag": "6", "xah": "7", "xai": "8", "xaj": "9"}},
	{args: []string{"split", "-n", "l/3", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "0123456789", "xab": "", "xac": ""}},
	{args: []string{"split", "-n", "3", "-"}, stdin: "0123456789", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "012", "xab": "345", "xac": "6789"}},
	{args: []string{"split", "-a", "1", "-n", "30", "ten"}, stdin: "", stdout: "", stderr: "split: the suffix length needs to be at least 2\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-a1", "-l1", "nums"}, stdin: "", stdout: "", stderr: "split: output file suffixes exhausted\n", code: 1, files: map[string]string{"xa": "1\n", "xb": "2\n", "xc": "3\n", "xd": "4\n", "xe": "5\n", "xf": "6\n", "xg": "7\n", "xh": "8\n", "xi": "9\n", "xj": "10\n", "xk": "11\n", "xl": "12\n", "xm": "13\n", "xn": "14\n", "xo": "15\n", "xp": "16\n", "xq": "17\n", "xr": "18\n", "xs": "19\n", "xt": "20\n", "xu": "21\n", "xv": "22\n", "xw": "23\n", "xx": "24\n", "xy": "25\n", "xz": "26\n"}},
	{args: []string{"split", "-n", "0", "in"}, stdin: "", stdout: "", stderr: "split: invalid number of chunks: ‘0’: Numerical result out of range\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-n", "4/3", "in"}, stdin: "", stdout: "", stderr: "split: invalid chunk number: ‘4’: Numerical result out of range\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-n", "0/3", "in"}, stdin: "", stdout: "", stderr: "split: invalid chunk number: ‘0’: Numerical result out of range\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-n", "r/3", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "0123456789", "xab": "", "xac": ""}},
	{args: []string{"split", "-n", "r/3", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "1\n4\n7\n10\n", "xab": "2\n5\n8\n", "xac": "3\n6\n9\n"}},
	{args: []string{"split", "-n", "r/2/3", "in"}, stdin: "", stdout: "2\n5\n8\n", stderr: "", code: 0, files: map[string]string{}},
	{args: []string{"split", "-e", "-n", "r/4", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "0123456789"}},
	{args: []string{"split", "-n", "x", "in"}, stdin: "", stdout: "", stderr: "split: invalid number of chunks: ‘x’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-a", "0", "-l", "2", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "0123456789"}},
	{args: []string{"split", "-a", "x", "in"}, stdin: "", stdout: "", stderr: "split: invalid suffix length: ‘x’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "nofile"}, stdin: "", stdout: "", stderr: "split: cannot open 'nofile' for reading: No such file or directory\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "in", "a", "b"}, stdin: "", stdout: "", stderr: "split: extra operand ‘b’\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-d", "--numeric-suffixes=abc", "in"}, stdin: "", stdout: "", stderr: "split: ‘abc’: invalid start value for numerical suffix\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "--numeric-suffixes=123", "in"}, stdin: "", stdout: "", stderr: "split: numerical suffix start value is too large for the suffix length\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-x=3", "in"}, stdin: "", stdout: "", stderr: "split: invalid option -- '='\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "--additional-suffix=a/b", "in"}, stdin: "", stdout: "", stderr: "split: invalid suffix ‘a/b’, contains directory separator\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "--additional-suffix=a/", "in"}, stdin: "", stdout: "", stderr: "split: xaaa/: Is a directory\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-t", "ab", "in"}, stdin: "", stdout: "", stderr: "split: multi-character separator ‘ab’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-t", "", "in"}, stdin: "", stdout: "", stderr: "split: empty record separator\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-l", "1", "-t", ";", "-t", ",", "in"}, stdin: "", stdout: "", stderr: "split: multiple separator characters specified\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-C", "0", "in"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘0’: Numerical result out of range\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "--verbose", "-b", "4", "ten"}, stdin: "", stdout: "creating file 'xaa'\ncreating file 'xab'\ncreating file 'xac'\n", stderr: "", code: 0, files: map[string]string{"xaa": "0123", "xab": "4567", "xac": "89"}},
	{args: []string{"split", "-Z", "in"}, stdin: "", stdout: "", stderr: "split: invalid option -- 'Z'\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-C", "5", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "abcde", "xab": "fghij", "xac": "klm\n", "xad": "xy\n", "xae": "abc\n", "xaf": "d\n"}},
	{args: []string{"split", "-C", "4", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "abcd", "xab": "efgh", "xac": "ijkl", "xad": "m\n", "xae": "xy\n", "xaf": "abc\n", "xag": "d\n"}},
	{args: []string{"split", "-C", "3", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "abc", "xab": "def", "xac": "ghi", "xad": "jkl", "xae": "m\n", "xaf": "xy\n", "xag": "abc", "xah": "\nd\n"}},
	{args: []string{"split", "-C", "100", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "abcdefghijklm\nxy\nabc\nd\n"}},
	{args: []string{"split", "-l", "2", "long", "nodir/x"}, stdin: "", stdout: "", stderr: "split: nodir/xaa: No such file or directory\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-l", "2", "long", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"longaa": "abcdefghijklm\nxy\n", "longab": "abc\nd\n"}},
	{args: []string{"split", "-b", "3", "long", "xa"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaaa": "abc", "xaab": "def", "xaac": "ghi", "xaad": "jkl", "xaae": "m\nx", "xaaf": "y\na", "xaag": "bc\n", "xaah": "d\n"}},
	{args: []string{"split", "-3", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "abcdefghijklm\nxy\nabc\n", "xab": "d\n"}},
	{args: []string{"split", "-12", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "abcdefghijklm\nxy\nabc\nd\n"}},
	{args: []string{"split", "-1", "-2", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "abcdefghijklm\nxy\n", "xab": "abc\nd\n"}},
	{args: []string{"split", "-l", "2", "-5", "long"}, stdin: "", stdout: "", stderr: "split: cannot split in more than one way\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-d5", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x00": "abcdefghijklm\nxy\nabc\nd\n"}},
	{args: []string{"split", "-5", "-l", "2", "long"}, stdin: "", stdout: "", stderr: "split: cannot split in more than one way\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-0", "long"}, stdin: "", stdout: "", stderr: "split: invalid number of lines: ‘0’\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-l", "1", "xaa"}, stdin: "", stdout: "", stderr: "split: 'xaa' would overwrite input; aborting\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-d", "-l", "1", "hundred"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x00": "1\n", "x01": "2\n", "x02": "3\n", "x03": "4\n", "x04": "5\n", "x05": "6\n", "x06": "7\n", "x07": "8\n", "x08": "9\n", "x09": "10\n", "x10": "11\n", "x11": "12\n", "x12": "13\n", "x13": "14\n", "x14": "15\n", "x15": "16\n", "x16": "17\n", "x17": "18\n", "x18": "19\n", "x19": "20\n", "x20": "21\n", "x21": "22\n", "x22": "23\n", "x23": "24\n", "x24": "25\n", "x25": "26\n", "x26": "27\n", "x27": "28\n", "x28": "29\n", "x29": "30\n", "x30": "31\n", "x31": "32\n", "x32": "33\n", "x33": "34\n", "x34": "35\n", "x35": "36\n", "x36": "37\n", "x37": "38\n", "x38": "39\n", "x39": "40\n", "x40": "41\n", "x41": "42\n", "x42": "43\n", "x43": "44\n", "x44": "45\n", "x45": "46\n", "x46": "47\n", "x47": "48\n", "x48": "49\n", "x49": "50\n", "x50": "51\n", "x51": "52\n", "x52": "53\n", "x53": "54\n", "x54": "55\n", "x55": "56\n", "x56": "57\n", "x57": "58\n", "x58": "59\n", "x59": "60\n", "x60": "61\n", "x61": "62\n", "x62": "63\n", "x63": "64\n", "x64": "65\n", "x65": "66\n", "x66": "67\n", "x67": "68\n", "x68": "69\n", "x69": "70\n", "x70": "71\n", "x71": "72\n", "x72": "73\n", "x73": "74\n", "x74": "75\n", "x75": "76\n", "x76": "77\n", "x77": "78\n", "x78": "79\n", "x79": "80\n", "x80": "81\n", "x81": "82\n", "x82": "83\n", "x83": "84\n", "x84": "85\n", "x85": "86\n", "x86": "87\n", "x87": "88\n", "x88": "89\n", "x89": "90\n", "x9000": "91\n", "x9001": "92\n", "x9002": "93\n", "x9003": "94\n", "x9004": "95\n", "x9005": "96\n", "x9006": "97\n", "x9007": "98\n", "x9008": "99\n", "x9009": "100\n"}},
	{args: []string{"split", "-l", "1", "-x", "-a", "1", "nums"}, stdin: "", stdout: "", stderr: "split: output file suffixes exhausted\n", code: 1, files: map[string]string{"x0": "1\n", "x1": "2\n", "x2": "3\n", "x3": "4\n", "x4": "5\n", "x5": "6\n", "x6": "7\n", "x7": "8\n", "x8": "9\n", "x9": "10\n", "xa": "11\n", "xb": "12\n", "xc": "13\n", "xd": "14\n", "xe": "15\n", "xf": "16\n"}},
	{args: []string{"split", "--numeric-suffixes=95", "-l", "10", "hundred"}, stdin: "", stdout: "", stderr: "split: output file suffixes exhausted\n", code: 1, files: map[string]string{"x95": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "x96": "11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n", "x97": "21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n", "x98": "31\n32\n33\n34\n35\n36\n37\n38\n39\n40\n", "x99": "41\n42\n43\n44\n45\n46\n47\n48\n49\n50\n"}},
	{args: []string{"split", "d"}, stdin: "", stdout: "", stderr: "split: d: Is a directory\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-n", "2", "d"}, stdin: "", stdout: "", stderr: "split: d: cannot determine file size: Is a directory\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-n", "r/2", "d"}, stdin: "", stdout: "", stderr: "split: d: Is a directory\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-t", ";", "-l", "2", "semi"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "a;b;", "xab": "c;d;", "xac": "e"}},
	{args: []string{"split", "-t", "\\0", "-l", "3", "nul"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "a\x00b\x00c\x00", "xab": "d\x00"}},
	{args: []string{"split", "-t", ";", "-n", "l/2", "semi"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "a;b;", "xab": "c;d;e"}},
	{args: []string{"split", "-l", "2", "empty"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{}},
	{args: []string{"split", "-n", "3", "empty"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "", "xab": "", "xac": ""}},
	{args: []string{"split", "-e", "-n", "3", "empty"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{}},
	{args: []string{"split", "-n", "l/3", "empty"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "", "xab": "", "xac": ""}},
	{args: []string{"split", "-n", "r/3", "empty"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "", "xab": "", "xac": ""}},
	{args: []string{"split", "-l", "1", "in", "old/x"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"old/xaa": "1\n", "old/xab": "2\n", "old/xac": "3\n", "old/xad": "4\n", "old/xae": "5\n", "old/xaf": "6\n", "old/xag": "7\n", "old/xah": "8\n", "old/xai": "9\n", "old/xaj": "10\n"}},
	{args: []string{"split", "--verbose", "-n", "r/3", "ten"}, stdin: "", stdout: "creating file 'xaa'\ncreating file 'xab'\ncreating file 'xac'\n", stderr: "", code: 0, files: map[string]string{"xaa": "0123456789", "xab": "", "xac": ""}},
	{args: []string{"split", "--verbose", "-e", "-n", "4", "ten"}, stdin: "", stdout: "creating file 'xaa'\ncreating file 'xab'\ncreating file 'xac'\ncreating file 'xad'\n", stderr: "", code: 0, files: map[string]string{"xaa": "01", "xab": "23", "xac": "45", "xad": "6789"}},
	{args: []string{"split", "-n", "l/5", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "abcdefghijklm\n", "xab": "", "xac": "", "xad": "xy\n", "xae": "abc\nd\n"}},
	{args: []string{"split", "-n", "l/7", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "abcdefghijklm\n", "xab": "", "xac": "", "xad": "", "xae": "xy\n", "xaf": "abc\n", "xag": "d\n"}},
	{args: []string{"split", "-n", "l/4/7", "long"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{}},
	{args: []string{"split", "-n", "5/7", "long"}, stdin: "", stdout: "m\nx", stderr: "", code: 0, files: map[string]string{}},
	{args: []string{"split", "-n", "7/7", "long"}, stdin: "", stdout: "bc\nd\n", stderr: "", code: 0, files: map[string]string{}},
	{args: []string{"split", "-b", "1K", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 1024), "xab": strings.Repeat("\x00", 1024), "xac": strings.Repeat("\x00", 1024), "xad": strings.Repeat("\x00", 1024), "xae": strings.Repeat("\x00", 904)}},
	{args: []string{"split", "-b", "1k", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 1024), "xab": strings.Repeat("\x00", 1024), "xac": strings.Repeat("\x00", 1024), "xad": strings.Repeat("\x00", 1024), "xae": strings.Repeat("\x00", 904)}},
	{args: []string{"split", "-b", "1KB", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 1000), "xab": strings.Repeat("\x00", 1000), "xac": strings.Repeat("\x00", 1000), "xad": strings.Repeat("\x00", 1000), "xae": strings.Repeat("\x00", 1000)}},
	{args: []string{"split", "-b", "1KiB", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 1024), "xab": strings.Repeat("\x00", 1024), "xac": strings.Repeat("\x00", 1024), "xad": strings.Repeat("\x00", 1024), "xae": strings.Repeat("\x00", 904)}},
	{args: []string{"split", "-b", "2kB", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 2000), "xab": strings.Repeat("\x00", 2000), "xac": strings.Repeat("\x00", 1000)}},
	{args: []string{"split", "-b", "1b", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 512), "xab": strings.Repeat("\x00", 512), "xac": strings.Repeat("\x00", 512), "xad": strings.Repeat("\x00", 512), "xae": strings.Repeat("\x00", 512), "xaf": strings.Repeat("\x00", 512), "xag": strings.Repeat("\x00", 512), "xah": strings.Repeat("\x00", 512), "xai": strings.Repeat("\x00", 512), "xaj": strings.Repeat("\x00", 392)}},
	{args: []string{"split", "-b", "1M", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 5000)}},
	{args: []string{"split", "-b", "1m", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 5000)}},
	{args: []string{"split", "-b", "1x", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘1x’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "1KX", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘1KX’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "1e", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘1e’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "1E", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 5000)}},
	{args: []string{"split", "-b", "1Y", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘1Y’: Value too large for defined data type\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "1Z", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘1Z’: Value too large for defined data type\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "1Q", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘1Q’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", " 5000", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 5000)}},
	{args: []string{"split", "-b", "+2500", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 2500), "xab": strings.Repeat("\x00", 2500)}},
	{args: []string{"split", "-b", "0x10", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘0x10’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "1B", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘1B’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "99999999999999999999", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘99999999999999999999’: Value too large for defined data type\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "1.5K", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘1.5K’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "-1", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘-1’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "K", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 1024), "xab": strings.Repeat("\x00", 1024), "xac": strings.Repeat("\x00", 1024), "xad": strings.Repeat("\x00", 1024), "xae": strings.Repeat("\x00", 904)}},
	{args: []string{"split", "-b", "1bB", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘1bB’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-b", "1KD", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 1000), "xab": strings.Repeat("\x00", 1000), "xac": strings.Repeat("\x00", 1000), "xad": strings.Repeat("\x00", 1000), "xae": strings.Repeat("\x00", 1000)}},
	{args: []string{"split", "-b", "9223372036854775807", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 5000)}},
	{args: []string{"split", "-b", "9223372036854775808", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of bytes: ‘9223372036854775808’: Value too large for defined data type\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-l", "1K", "z"}, stdin: "", stdout: "", stderr: "split: invalid number of lines: ‘1K’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-l", "99999999999999999999", "in"}, stdin: "", stdout: "", stderr: "split: invalid number of lines: ‘99999999999999999999’: Value too large for defined data type\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-99999999999999999999", "in"}, stdin: "", stdout: "", stderr: "split: line count option -99999999999999999999... is too large\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-C", "1K", "z"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": strings.Repeat("\x00", 1024), "xab": strings.Repeat("\x00", 1024), "xac": strings.Repeat("\x00", 1024), "xad": strings.Repeat("\x00", 1024), "xae": strings.Repeat("\x00", 904)}},
	{args: []string{"split", "-n", "99999999999999999999", "in"}, stdin: "", stdout: "", stderr: "split: invalid number of chunks: ‘99999999999999999999’: Value too large for defined data type\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-a", "-1", "in"}, stdin: "", stdout: "", stderr: "split: invalid suffix length: ‘-1’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-a", "99999999999999999999", "in"}, stdin: "", stdout: "", stderr: "split: invalid suffix length: ‘99999999999999999999’: Value too large for defined data type\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "--io-blksize=x", "in"}, stdin: "", stdout: "", stderr: "split: unrecognized option '--io-blksize=x'\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "--lines=2", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "1\n2\n", "xab": "3\n4\n", "xac": "5\n6\n", "xad": "7\n8\n", "xae": "9\n10\n"}},
	{args: []string{"split", "--line", "2", "in"}, stdin: "", stdout: "", stderr: "split: option '--line' is ambiguous; possibilities: '--lines' '--line-bytes'\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "--bytes", "3", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "012", "xab": "345", "xac": "678", "xad": "9"}},
	{args: []string{"split", "--number=l/2", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "1\n2\n3\n4\n5\n", "xab": "6\n7\n8\n9\n10\n"}},
	{args: []string{"split", "--suffix-length=3", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaaa": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"}},
	{args: []string{"split", "--hex-suffixes", "-l", "3", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x00": "1\n2\n3\n", "x01": "4\n5\n6\n", "x02": "7\n8\n9\n", "x03": "10\n"}},
	{args: []string{"split", "--hex-suffixes=9", "-l", "3", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x09": "1\n2\n3\n", "x0a": "4\n5\n6\n", "x0b": "7\n8\n9\n", "x0c": "10\n"}},
	{args: []string{"split", "--elide-empty-files", "-n", "11", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "0", "xab": "1", "xac": "2", "xad": "3", "xae": "4", "xaf": "5", "xag": "6", "xah": "7", "xai": "8", "xaj": "9"}},
	{args: []string{"split", "-u", "-l", "5", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "1\n2\n3\n4\n5\n", "xab": "6\n7\n8\n9\n10\n"}},
	{args: []string{"split", "-n", "1/2", "--filter=cat", "in"}, stdin: "", stdout: "", stderr: "split: --filter does not process a chunk extracted to stdout\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "-n", "20", "--numeric-suffixes=5", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x05": "0", "x06": "1", "x07": "2", "x08": "3", "x09": "4", "x10": "5", "x11": "6", "x12": "7", "x13": "8", "x14": "9", "x15": "", "x16": "", "x17": "", "x18": "", "x19": "", "x20": "", "x21": "", "x22": "", "x23": "", "x24": ""}},
	{args: []string{"split", "-n", "20", "--numeric-suffixes=25", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x25": "0", "x26": "1", "x27": "2", "x28": "3", "x29": "4", "x30": "5", "x31": "6", "x32": "7", "x33": "8", "x34": "9", "x35": "", "x36": "", "x37": "", "x38": "", "x39": "", "x40": "", "x41": "", "x42": "", "x43": "", "x44": ""}},
	{args: []string{"split", "-n", "101", "-d", "ten"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x000": "0", "x001": "1", "x002": "2", "x003": "3", "x004": "4", "x005": "5", "x006": "6", "x007": "7", "x008": "8", "x009": "9", "x010": "", "x011": "", "x012": "", "x013": "", "x014": "", "x015": "", "x016": "", "x017": "", "x018": "", "x019": "", "x020": "", "x021": "", "x022": "", "x023": "", "x024": "", "x025": "", "x026": "", "x027": "", "x028": "", "x029": "", "x030": "", "x031": "", "x032": "", "x033": "", "x034": "", "x035": "", "x036": "", "x037": "", "x038": "", "x039": "", "x040": "", "x041": "", "x042": "", "x043": "", "x044": "", "x045": "", "x046": "", "x047": "", "x048": "", "x049": "", "x050": "", "x051": "", "x052": "", "x053": "", "x054": "", "x055": "", "x056": "", "x057": "", "x058": "", "x059": "", "x060": "", "x061": "", "x062": "", "x063": "", "x064": "", "x065": "", "x066": "", "x067": "", "x068": "", "x069": "", "x070": "", "x071": "", "x072": "", "x073": "", "x074": "", "x075": "", "x076": "", "x077": "", "x078": "", "x079": "", "x080": "", "x081": "", "x082": "", "x083": "", "x084": "", "x085": "", "x086": "", "x087": "", "x088": "", "x089": "", "x090": "", "x091": "", "x092": "", "x093": "", "x094": "", "x095": "", "x096": "", "x097": "", "x098": "", "x099": "", "x100": ""}},
	{args: []string{"split", "-n", "r/20", "--numeric-suffixes", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"x00": "1\n", "x01": "2\n", "x02": "3\n", "x03": "4\n", "x04": "5\n", "x05": "6\n", "x06": "7\n", "x07": "8\n", "x08": "9\n", "x09": "10\n", "x10": "", "x11": "", "x12": "", "x13": "", "x14": "", "x15": "", "x16": "", "x17": "", "x18": "", "x19": ""}},
	{args: []string{"split", "-l", "2", "--", "in", "pre"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"preaa": "1\n2\n", "preab": "3\n4\n", "preac": "5\n6\n", "pread": "7\n8\n", "preae": "9\n10\n"}},
	{args: []string{"split", "in", "-l", "4"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xaa": "1\n2\n3\n4\n", "xab": "5\n6\n7\n8\n", "xac": "9\n10\n"}},
	{args: []string{"split", "---io-blksize=x", "in"}, stdin: "", stdout: "", stderr: "split: invalid IO block size: ‘x’\n", code: 1, files: map[string]string{}},
	{args: []string{"split", "---io-blksize=4K", "-l", "3", "in"}, stdin: "", stdout: "", stderr: "", code: 0, files: map[string]string{"xab": "4\n5\n6\n", "xac": "7\n8\n9\n", "xad": "10\n"}},
	{args: []string{"split", "--additional-suffix=/a", "in"}, stdin: "", stdout: "", stderr: "split: invalid suffix ‘/a’, contains directory separator\nTry 'split --help' for more information.\n", code: 1, files: map[string]string{}},
}

func TestSplitGNU(t *testing.T) {
	for _, c := range splitCases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir := setup(t, splitFiles)
			r := runSplit(t, dir, c.stdin, c.args...)
			assert.Equal(t, c.stdout, r.stdout, "stdout")
			assert.Equal(t, c.stderr, r.stderr, "stderr")
			assert.Equal(t, c.code, r.code, "exit status")
			assert.Equal(t, c.files, changedFiles(t, dir, splitFiles), "files")
		})
	}
}

// runSplit runs split with standard input read from a file, as GNU's
// was recorded: -n needs to know the size of its input.
func runSplit(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	in := filepath.Join(t.TempDir(), "stdin")
	require.NoError(t, os.WriteFile(in, []byte(stdin), 0o644))
	f, err := os.Open(in)
	require.NoError(t, err)
	defer f.Close()
	var out, errb bytes.Buffer
	e := newEnv(dir, "", &out, &errb)
	e.Stdin = f
	code := execBuiltin(e, args)
	return result{out.String(), errb.String(), code}
}

// changedFiles lists the files under dir that are not as files made
// them, with their contents.
func changedFiles(t *testing.T, dir string, files fixture) map[string]string {
	t.Helper()
	changed := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		if old, ok := files[filepath.ToSlash(rel)]; !ok || old != string(data) {
			changed[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	}))
	return changed
}

// TestSplitPipe: -n cannot size a pipe, as GNU cannot; the other modes
// read one.
func TestSplitPipe(t *testing.T) {
	pipe := func(data string) io.Reader {
		pr, pw := io.Pipe()
		go func() {
			io.WriteString(pw, data)
			pw.Close()
		}()
		return pr
	}
	dir := setup(t, nil)
	var out, errb bytes.Buffer
	e := newEnv(dir, "", &out, &errb)
	e.Stdin = pipe("a\nb\nc\n")
	assert.Equal(t, 1, execBuiltin(e, []string{"split", "-n", "2"}))
	assert.Equal(t, "split: -: cannot determine file size\n", errb.String())
	assert.Empty(t, changedFiles(t, dir, nil))

	errb.Reset()
	e.Stdin = pipe("a\nb\nc\n")
	assert.Equal(t, 0, execBuiltin(e, []string{"split", "-l", "2", "-", "p"}))
	assert.Empty(t, errb.String())
	assert.Equal(t, map[string]string{"paa": "a\nb\n", "pab": "c\n"}, changedFiles(t, dir, nil))
}

// TestSplitFilter: --filter runs its command through the shell (here a
// stand-in for it) once per output file, with the file's data as
// standard input and $FILE naming it; a failing command stops split
// with its status.
func TestSplitFilter(t *testing.T) {
	type call struct{ script, stdin string }
	var calls []call
	dir := setup(t, fixture{"in": numbered(5)})
	var out, errb bytes.Buffer
	e := newEnv(dir, "", &out, &errb)
	status := 0
	e.Exec = func(args []string, in io.Reader, stdout, stderr io.Writer) int {
		data, _ := io.ReadAll(in)
		require.Len(t, args, 3)
		assert.Equal(t, []string{"sh", "-c"}, args[:2])
		calls = append(calls, call{args[2], string(data)})
		return status
	}
	run := func(args ...string) int {
		calls, out, errb = nil, bytes.Buffer{}, bytes.Buffer{}
		return Commands["split"](e, args)
	}
	assert.Equal(t, 0, run("split", "-l", "2", "--filter=gzip > $FILE.gz", "in"))
	assert.Equal(t, []call{
		{"FILE='xaa'; export FILE\ngzip > $FILE.gz", "1\n2\n"},
		{"FILE='xab'; export FILE\ngzip > $FILE.gz", "3\n4\n"},
		{"FILE='xac'; export FILE\ngzip > $FILE.gz", "5\n"},
	}, calls)
	assert.Empty(t, changedFiles(t, dir, fixture{"in": numbered(5)}), "no files of its own")

	assert.Equal(t, 0, run("split", "-n", "r/2", "--verbose", "--filter=cat", "in"))
	assert.Equal(t, []call{{"FILE='xaa'; export FILE\ncat", "1\n3\n5\n"}, {"FILE='xab'; export FILE\ncat", "2\n4\n"}}, calls)
	assert.Equal(t, "executing with FILE=xaa\nexecuting with FILE=xab\n", out.String())

	status = 3
	assert.Equal(t, 3, run("split", "-l", "2", "--filter=exit 3", "in"))
	assert.Len(t, calls, 1)
	assert.Equal(t, "split: with FILE=xaa, exit 3 from command: exit 3\n", errb.String())
}

// TestSplitCancel: a split of endless input stops when the shell
// cancels it.
func TestSplitCancel(t *testing.T) {
	dir := setup(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	e := &proc.Env{Ctx: ctx, Stdin: endless{}, Stdout: io.Discard, Stderr: io.Discard, Dir: dir}
	done := make(chan int)
	go func() { done <- Commands["split"](e, []string{"split", "-b", "1M"}) }()
	cancel()
	assert.Equal(t, 1, <-done)
}

// endless reads as newlines forever.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '\n'
	}
	return len(p), nil
}
