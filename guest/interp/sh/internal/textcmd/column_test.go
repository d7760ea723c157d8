package textcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
	"github.com/skillrun/skillrun/internal/testkit"
)

// The column expectations below are what util-linux 2.38.1's column
// printed on Debian 12 (LANG=C.UTF-8, standard output not a terminal,
// COLUMNS unset unless a case sets it) for the same command, input and
// files; they were recorded by running it. The files join gnuFiles, so
// "d" is a directory.

var columnFiles = map[string]string{
	"bad":   "aÿb c\nd e\n",
	"c1":    "a:b::c\n:x\n",
	"csv":   "name,age,city\nalice,30,paris\nbob,,rome\n,5,\n",
	"ctl":   "a\x01 b\r\nc\td e\n",
	"lead":  " a:b\n  c:d\n",
	"n30":   "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n",
	"noeol": "a b\ncc d",
	"nul":   "a\x00b c\nd e\n",
	"s1":    "a:\nbb:c\n",
	"t1":    "a b c\nddd e\n\nf  g   h i\n",
	"u8":    "héllo wörld\n日本語 x\nab y\néx z\n",
	"wide":  "wwwww wwwwwwwwwwwwwwwwwww wwwwwwwwwwwwwwwwwwwwwwwwwwww wwwwwwwwwwwwwwwwwwwwwwwwww wwwwwwwwwwwwwwwwwwwwwwwww\nwww wwwwwwwww wwww wwwwwwwwwwwwwwww wwwwwwwwwwwwwwwwwwwwwwwww\n",
	"words": "apple\nbanana split\ncherry\n\n  date\n   \nelderberry\n",
}

// columnBytes holds text that is not UTF-8, and characters whose width
// is easy to get wrong (a zero-width space, a soft hyphen).
var columnBytes = map[string]string{
	"bad": "a\xffb c\nd\xc3 e\xab\n\xe2\x82x y\n",
	"u":   "é\u200bx y\nab\u00ad z\n",
}

// columnANSI holds colour sequences, which only tables count as
// taking no room.
var columnANSI = map[string]string{
	"ansi":  "\x1b[31mred\x1b[0m x\nab y\n\x1b[1mbold\x1b[ z\n",
	"ansi2": "\x1b[31mred\x1b[0m\nab\nc\nd\n",
}

var columnCases = []cmdCase{
	{args: []string{"column", "-t", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-s:", "s1"}, stdin: "", out: "a   \nbb  c\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-s", ":", "c1"}, stdin: "", out: "a  b    c\n   x    \n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-o", "|", "t1"}, stdin: "", out: "a  |b|c|\nddd|e| |\nf  |g|h|i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-o", "", "t1"}, stdin: "", out: "a  bc\nddde \nf  ghi\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "X,Y,Z", "t1"}, stdin: "", out: "X    Y  Z  \na    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "X", "t1"}, stdin: "", out: "X          \na    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "A,B,C,D,E", "t1"}, stdin: "", out: "A    B  C  D  E\na    b  c     \nddd  e        \nf    g  h  i  \n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-d", "-N", "X,Y", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "LONGNAME,b", "-d", "t1"}, stdin: "", out: "a         b  c  \nddd       e     \nf         g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "a,,b", "t1"}, stdin: "", out: "a    b     \na    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "n30"}, stdin: "", out: "1\t4\t7\t10\t13\t16\t19\t22\t25\t28\n2\t5\t8\t11\t14\t17\t20\t23\t26\t29\n3\t6\t9\t12\t15\t18\t21\t24\t27\t30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-x", "n30"}, stdin: "", out: "1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n11\t12\t13\t14\t15\t16\t17\t18\t19\t20\n21\t22\t23\t24\t25\t26\t27\t28\t29\t30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-c", "30", "n30"}, stdin: "", out: "1\t11\t21\n2\t12\t22\n3\t13\t23\n4\t14\t24\n5\t15\t25\n6\t16\t26\n7\t17\t27\n8\t18\t28\n9\t19\t29\n10\t20\t30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-c", "5", "n30"}, stdin: "", out: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-c", "0", "n30"}, stdin: "", out: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-x", "-c", "10", "n30"}, stdin: "", out: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-c", "40", "words"}, stdin: "", out: "apple\t\t  date\nbanana split\telderberry\ncherry\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-x", "-c", "40", "words"}, stdin: "", out: "apple\t\tbanana split\ncherry\t\t  date\nelderberry\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "words"}, stdin: "", out: "apple\t\tbanana split\tcherry\t\t  date\t\telderberry\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-L", "words"}, stdin: "", out: "apple\t\tcherry\t\t  date\t\telderberry\nbanana split\t\t\t\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-L", "-c", "30", "words"}, stdin: "", out: "apple\nbanana split\ncherry\n\n  date\n\nelderberry\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-L", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \n           \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "u8"}, stdin: "", out: "héllo   wörld\n日本語  x\nab      y\néx      z\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "u8"}, stdin: "", out: "héllo wörld\t日本語 x\tab y\t\téx z\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "bad"}, stdin: "", out: "aÿb  c\nd    e\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "bad"}, stdin: "", out: "aÿb c\td e\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "ctl"}, stdin: "", out: "a\x01  b\r  \nc  d  e\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "nul"}, stdin: "", out: "a  \nd  e\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "wide"}, stdin: "", out: "wwwww  wwwwwwwwwwwwwwwwwww  wwwwwwwwwwwwwwwwwwwwwwwwwwww  wwwwwwwwwwwwwwwwwwwwwwwwww  wwwwwwwwwwwwwwwwwwwwwwwww\nwww    wwwwwwwww            wwww                          wwwwwwwwwwwwwwww            wwwwwwwwwwwwwwwwwwwwwwwww\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "noeol"}, stdin: "", out: "a   b\ncc  d\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-s", ",", "csv"}, stdin: "", out: "name   age  city\nalice  30   paris\nbob         rome\n       5    \n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-s", ",", "-o", " | ", "csv"}, stdin: "", out: "name  | age | city\nalice | 30  | paris\nbob   |     | rome\n      | 5   | \n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-s", ",", "csv"}, stdin: "", out: "name,age,city\talice,30,paris\tbob,,rome\t,5,\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-s", ",", "lead"}, stdin: "", out: " a:b\n  c:d\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-s:", "lead"}, stdin: "", out: " a   b\n  c  d\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-s", "", "t1"}, stdin: "", out: "a b c\nddd e\nf  g   h i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-l", "2"}, stdin: "a b  c d \n", out: "a  b  c d \n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-l", "2", "-s", ":"}, stdin: "a:b::c\n", out: "a  b::c\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-l", "0", "t1"}, stdin: "", out: "", err: "column: columns limit must be greater than zero\n", code: 1, files: columnFiles},
	{args: []string{"column", "-t", "-l", "x", "t1"}, stdin: "", out: "", err: "column: invalid columns limit argument: 'x'\n", code: 1, files: columnFiles},
	{args: []string{"column", "-t", "-R", "1", "t1"}, stdin: "", out: "  a  b  c  \nddd  e     \n  f  g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-R", "2,4", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-R", "2"}, stdin: "a bbb\ncc d\ne\n", out: "a   bbb\ncc    d\ne   \n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-R", "9", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "a,b", "-R", "x", "t1"}, stdin: "", out: "", err: "column: undefined column name 'x'\n", code: 1, files: columnFiles},
	{args: []string{"column", "-t", "-N", "A,B,C,D", "-R", "B,D", "t1"}, stdin: "", out: "A    B  C  D\na    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "A,B,C,D", "-R", "b", "t1"}, stdin: "", out: "A    B  C  D\na    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-H", "2", "t1"}, stdin: "", out: "a    c  \nddd     \nf    h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-H", "4", "t1"}, stdin: "", out: "a    b  c\nddd  e  \nf    g  h\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-O", "3,1", "t1"}, stdin: "", out: "c  a    b  \n   ddd  e  \nh  f    g  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-O", "9", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "A,B,C,D", "-O", "D,A", "t1"}, stdin: "", out: "D  A    B  C\n   a    b  c\n   ddd  e  \ni  f    g  h\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-E", "1", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-e", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-T", "1", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-W", "2", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-c", "10", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-N", "a,b", "t1"}, stdin: "", out: "", err: "column: option --table required for all --table-*\n", code: 1, files: columnFiles},
	{args: []string{"column", "-H", "1", "t1"}, stdin: "", out: "", err: "column: option --table required for all --table-*\n", code: 1, files: columnFiles},
	{args: []string{"column", "-d", "t1"}, stdin: "", out: "a b c\t\tddd e\t\tf  g   h i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-x", "-t", "t1"}, stdin: "", out: "", err: "column: mutually exclusive arguments: --table --fillrows\n", code: 1, files: columnFiles},
	{args: []string{"column", "-t", "-x", "t1"}, stdin: "", out: "", err: "column: mutually exclusive arguments: --table --fillrows\n", code: 1, files: columnFiles},
	{args: []string{"column", "-c", "abc", "t1"}, stdin: "", out: "", err: "column: invalid columns argument: 'abc'\n", code: 1, files: columnFiles},
	{args: []string{"column", "-c", "-1", "t1"}, stdin: "", out: "", err: "column: invalid columns argument: '-1': Numerical result out of range\n", code: 1, files: columnFiles},
	{args: []string{"column", "-c", "99999999999", "t1"}, stdin: "", out: "", err: "column: invalid columns argument: '99999999999': Numerical result out of range\n", code: 1, files: columnFiles},
	{args: []string{"column", "-c", "", "t1"}, stdin: "", out: "", err: "column: invalid columns argument: ''\n", code: 1, files: columnFiles},
	{args: []string{"column", "-c", "+5", "n30"}, stdin: "", out: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-c", "-0", "n30"}, stdin: "", out: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-Z", "t1"}, stdin: "", out: "", err: "column: invalid option -- 'Z'\nTry 'column --help' for more information.\n", code: 1, files: columnFiles},
	{args: []string{"column", "--foo", "t1"}, stdin: "", out: "", err: "column: unrecognized option '--foo'\nTry 'column --help' for more information.\n", code: 1, files: columnFiles},
	{args: []string{"column", "-c"}, stdin: "", out: "", err: "column: option requires an argument -- 'c'\nTry 'column --help' for more information.\n", code: 1, files: columnFiles},
	{args: []string{"column", "-t", "nofile"}, stdin: "", out: "", err: "column: nofile: No such file or directory\n", code: 1, files: columnFiles},
	{args: []string{"column", "-t", "t1", "nofile", "s1"}, stdin: "", out: "a     b  c  \nddd   e     \nf     g  h  i\na:          \nbb:c        \n", err: "column: nofile: No such file or directory\n", code: 0, files: columnFiles},
	{args: []string{"column", "nofile", "t1"}, stdin: "", out: "a b c\t\tddd e\t\tf  g   h i\n", err: "column: nofile: No such file or directory\n", code: 1, files: columnFiles},
	{args: []string{"column", "nofile"}, stdin: "", out: "", err: "column: nofile: No such file or directory\n", code: 1, files: columnFiles},
	{args: []string{"column", "nofile", "nofile"}, stdin: "", out: "", err: "column: nofile: No such file or directory\ncolumn: nofile: No such file or directory\n", code: 2, files: columnFiles},
	{args: []string{"column", "-t", "nofile", "nofile"}, stdin: "", out: "", err: "column: nofile: No such file or directory\ncolumn: nofile: No such file or directory\n", code: 1, files: columnFiles},
	{args: []string{"column", "-t", "-"}, stdin: "", out: "", err: "column: -: No such file or directory\n", code: 1, files: columnFiles},
	{args: []string{"column", "-t"}, stdin: "x y\nzz w\n", out: "x   y\nzz  w\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column"}, stdin: "", out: "", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t"}, stdin: "", out: "", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "a,b"}, stdin: "", out: "", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "d"}, stdin: "", out: "", err: "column: read failed: Is a directory\n", code: 1, files: columnFiles},
	{args: []string{"column", "d"}, stdin: "", out: "", err: "column: read failed: Is a directory\n", code: 1, files: columnFiles},
	{args: []string{"column", "-t", "t1", "d"}, stdin: "", out: "", err: "column: read failed: Is a directory\n", code: 1, files: columnFiles},
	{args: []string{"column", "--table", "--separator=:", "--output-separator=-", "c1"}, stdin: "", out: "a-b--c\n -x--\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "--output-width=20", "n30"}, stdin: "", out: "1\t16\n2\t17\n3\t18\n4\t19\n5\t20\n6\t21\n7\t22\n8\t23\n9\t24\n10\t25\n11\t26\n12\t27\n13\t28\n14\t29\n15\t30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "--fillrows", "--columns", "20", "n30"}, stdin: "", out: "1\t2\n3\t4\n5\t6\n7\t8\n9\t10\n11\t12\n13\t14\n15\t16\n17\t18\n19\t20\n21\t22\n23\t24\n25\t26\n27\t28\n29\t30\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-N", "a,b", "-O", "B,a", "t1"}, stdin: "", out: "b  a       \nb  a    c  \ne  ddd     \ng  f    h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-l", "3"}, stdin: "a  b c d\na    b\nab    cd\n  a    b\na b  \na b c d e\n", out: "a   b   \na   b    b\nab  cd  cd\na   b    b\na   b    \na   b   c d e\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-l", "1"}, stdin: "  a  b  \nxy\n", out: "  a  b  \nxy\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-s:", "-l", "2"}, stdin: "a:\na::\nb:c:d\n", out: "a  \na  :\nb  c:d\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-L"}, stdin: "\n\n", out: "", err: "", code: 1, files: columnFiles},
	{args: []string{"column", "-t", "-H", "1"}, stdin: "a\n\nb\n", out: "\n\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "-E", "1", "-c", "100", "t1"}, stdin: "", out: "a    b  c  \nddd  e     \nf    g  h  i\n", err: "", code: 0, files: columnFiles},
	{args: []string{"column", "-t", "bad"}, stdin: "", out: "a\\xffb     c\nd\\xc3      e\\xab\n\\xe2\\x82x  y\n", err: "", code: 0, files: columnBytes},
	{args: []string{"column", "bad"}, stdin: "", out: "a\\xffb c\td\\xc3 e\\xab\t\\xe2\\x82x y\n", err: "", code: 0, files: columnBytes},
	{args: []string{"column", "-t", "u"}, stdin: "", out: "é\u200bx   y\nab\u00ad  z\n", err: "", code: 0, files: columnBytes},
	{args: []string{"column", "-t", "-s", "é", "u"}, stdin: "", out: "       \u200bx y\nab\u00ad z  \n", err: "", code: 0, files: columnBytes},
	{args: []string{"column", "-t", "ansi"}, stdin: "", out: "\x1b[31mred\x1b[0m    x\nab     y\n\x1b[1mbold\x1b[  z\n", err: "", code: 0, files: columnANSI},
	{args: []string{"column", "-c", "20", "ansi2"}, stdin: "", out: "\x1b[31mred\x1b[0m\nab\nc\nd\n", err: "", code: 0, files: columnANSI},
	{args: []string{"column", "-t", "-o", "\x1b[0m|", "ansi"}, stdin: "", out: "\x1b[31mred\x1b[0m  \x1b[0m|x\nab   \x1b[0m|y\n\x1b[1mbold\x1b[\x1b[0m|z\n", err: "", code: 0, files: columnANSI},
}

// columnEnvCase is a column run with extra environment (COLUMNS).
type columnEnvCase struct {
	env      []string
	args     []string
	stdin    string
	out, err string
	code     int
}

var columnEnvCases = []columnEnvCase{
	{env: []string{"COLUMNS=40"}, args: []string{"column", "n30"}, stdin: "", out: "1\t7\t13\t19\t25\n2\t8\t14\t20\t26\n3\t9\t15\t21\t27\n4\t10\t16\t22\t28\n5\t11\t17\t23\t29\n6\t12\t18\t24\t30\n", err: "", code: 0},
	{env: []string{"COLUMNS=abc"}, args: []string{"column", "n30"}, stdin: "", out: "1\t4\t7\t10\t13\t16\t19\t22\t25\t28\n2\t5\t8\t11\t14\t17\t20\t23\t26\t29\n3\t6\t9\t12\t15\t18\t21\t24\t27\t30\n", err: "", code: 0},
	{env: []string{"COLUMNS= 30"}, args: []string{"column", "n30"}, stdin: "", out: "1\t11\t21\n2\t12\t22\n3\t13\t23\n4\t14\t24\n5\t15\t25\n6\t16\t26\n7\t17\t27\n8\t18\t28\n9\t19\t29\n10\t20\t30\n", err: "", code: 0},
	{env: []string{"COLUMNS=40"}, args: []string{"column", "-c", "100", "n30"}, stdin: "", out: "1\t4\t7\t10\t13\t16\t19\t22\t25\t28\n2\t5\t8\t11\t14\t17\t20\t23\t26\t29\n3\t6\t9\t12\t15\t18\t21\t24\t27\t30\n", err: "", code: 0},
}

func TestColumnGNU(t *testing.T) {
	runCases(t, columnCases)
}

// TestColumnEnv: without -c, COLUMNS sets the width when it is a
// positive number.
func TestColumnEnv(t *testing.T) {
	for _, c := range columnEnvCases {
		t.Run(strings.Join(append(c.env, c.args...), " "), func(t *testing.T) {
			dir := testkit.WriteTree(t, t.TempDir(), columnFiles)
			var out, errOut bytes.Buffer
			e := &proc.Env{Ctx: context.Background(), Stdin: strings.NewReader(c.stdin), Stdout: &out, Stderr: &errOut,
				Dir: dir, Environ: append([]string{"LANG=C.UTF-8"}, c.env...)}
			code := Commands["column"](e, c.args)
			assert.Equal(t, c.out, out.String(), "stdout")
			assert.Equal(t, c.err, errOut.String(), "stderr")
			assert.Equal(t, c.code, code, "exit status")
		})
	}
}

// TestColumnUnsupported: what this column does not do fails with
// status 1 and says so, rather than print something else than
// util-linux would.
func TestColumnUnsupported(t *testing.T) {
	runCases(t, []cmdCase{
		{args: []string{"column", "-t", "-J", "-N", "a,b", "t1"}, files: columnFiles, code: 1,
			err: "column: option -J (JSON output) is not supported in the sandbox\n"},
		{args: []string{"column", "-t", "-r", "1", "-i", "1", "-p", "2", "t1"}, files: columnFiles, code: 1,
			err: "column: option -r (tree output) is not supported in the sandbox\n"},
		{args: []string{"column", "-t", "-T", "1", "-c", "8", "t1"}, files: columnFiles, code: 1,
			err: "column: fitting a table wider than 8 columns (-E, -T, -W) is not supported in the sandbox\n"},
	})
}

// TestColumnRuneWidth checks characters against glibc 2.36's wcwidth in
// C.UTF-8.
func TestColumnRuneWidth(t *testing.T) {
	for r, want := range map[rune]int{
		'a': 1, 'é': 1, 0x301: 0, 0x200b: 0, 0xfeff: 0, 0xad: 1, 0x600: 1, 0x1160: 0, 0xd7b0: 0,
		0x01: 0, 0x7f: 0, 0x85: 0, 0x2028: 0, 0x378: 0, 0xe000: 1,
		'日': 2, 0x3000: 2, 0x303f: 1, 0x231a: 2, 0x1f600: 2, 0x1f910: 2, 0x1fa70: 2, 0x20000: 2, 0xff01: 2, 0xff61: 1,
	} {
		assert.Equal(t, want, columnRuneWidth(r), "%U", r)
	}
}
