//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, with
// expand/arith2.go: what bash does on an error of arithmetic. An error
// in an expansion, echo $(( 2**-1 )), abandons the whole command line
// being run (a function, a loop, the rest of a list) with status 1 and
// the script goes on with its next line; in (( )), let and for (( )) it
// only fails that command. mvdan.cc/sh printed the error and went on
// with 0. And [[ =~ ]] as bash has it: quoted parts of the regular
// expression match themselves, BASH_REMATCH is emptied when nothing
// matches.

package interp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// skArithMsg writes err of arithmetic as bash does, reporting whether
// err was one.
func (r *Runner) skArithMsg(err error, cmd string) bool {
	var ae *expand.SkillrunArithError
	if !errors.As(err, &ae) || errors.Is(err, errReadOnly) {
		return false
	}
	prefix := "bash: "
	if r.filename != "" {
		prefix = r.filename + ": "
	}
	if ae.Pos.IsValid() {
		prefix += fmt.Sprintf("line %d: ", ae.Pos.Line())
	}
	fmt.Fprintf(r.stderr, "%s%s%s\n", prefix, cmd, ae.Error())
	return true
}

// skExpandErr handles an expansion's error of arithmetic, or a bad
// indirect reference (${!ref} naming no variable): the command line is
// abandoned (skTopStmts goes on with the next) with status 1, leaving a
// function it was in, as bash does.
func (r *Runner) skExpandErr(err error) bool {
	if expand.SkillrunFailsCommand(err) {
		fmt.Fprintln(r.stderr, err.Error())
	} else if !r.skArithMsg(err, "") {
		return false
	}
	r.exit.code = 1
	r.exit.exiting = true
	r.skAbort = true
	return true
}

// skArithmErr handles an error of (( )), let or for (( )): that command
// fails.
func (r *Runner) skArithmErr(err error) {
	if r.skArithMsg(err, "") {
		r.exit.code = 1
		return
	}
	r.expandErr(err)
}

// skTopStmts runs a script's commands, going on after one abandoned by
// an error of arithmetic with the next line, as bash reads a line at a
// time.
func (r *Runner) skTopStmts(ctx context.Context, stmts []*syntax.Stmt) {
	skipTo := uint(0)
	for _, st := range stmts {
		if st.Pos().Line() <= skipTo {
			continue // the rest of an abandoned line
		}
		r.stmt(ctx, st)
		if r.skAbort {
			r.skAbort = false
			r.exit = exitStatus{code: 1}
			r.lastExit = r.exit
			skipTo = st.End().Line()
		}
	}
}

// skReMatch is [[ x =~ y ]]: y's quoted parts and backslashed
// characters match themselves, the rest is an extended regular
// expression.
func (r *Runner) skReMatch(x *syntax.BinaryTest) string {
	str := r.literal(x.X.(*syntax.Word))
	yw, ok := x.Y.(*syntax.Word)
	if !ok {
		return ""
	}
	var sb strings.Builder
	for i, p := range yw.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				// A tilde prefix expands to text matched as it is.
				tilde, _, _ := strings.Cut(v, "/")
				sb.WriteString(regexp.QuoteMeta(r.literal(&syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: tilde}}})))
				v = v[len(tilde):]
			}
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
					sb.WriteString(regexp.QuoteMeta(v[i : i+1]))
					continue
				}
				sb.WriteByte(v[i])
			}
		case *syntax.SglQuoted, *syntax.DblQuoted:
			sb.WriteString(regexp.QuoteMeta(r.literal(&syntax.Word{Parts: []syntax.WordPart{p}})))
		default:
			sb.WriteString(r.literal(&syntax.Word{Parts: []syntax.WordPart{p}}))
		}
	}
	re, err := regexp.Compile(sb.String())
	if err != nil || skBadBrace(sb.String()) {
		r.exit.code = 2
		return ""
	}
	m := re.FindStringSubmatch(str)
	matched := m != nil
	if m == nil {
		m = []string{}
	}
	r.setVar("BASH_REMATCH", expand.Variable{Set: true, Kind: expand.Indexed, List: m})
	if !matched {
		return ""
	}
	return "1"
}

// skBadBrace reports whether re has a { with nothing to repeat (at its
// start, after ( or |), which bash's regular expressions reject and Go's
// take as a literal {.
func skBadBrace(re string) bool {
	prev := byte(0)
	for i := 0; i < len(re); i++ {
		c := re[i]
		if c == '\\' {
			i++
			prev = 'a'
			continue
		}
		if c == '{' && (prev == 0 || prev == '(' || prev == '|') {
			return true
		}
		prev = c
	}
	return false
}

// skTestClause is [[ x ]]: an error of arithmetic in it fails the
// command, with status 1, rather than abandoning the line.
func (r *Runner) skTestClause(ctx context.Context, x syntax.TestExpr) string {
	res := r.bashTest(ctx, x, false)
	if r.skAbort {
		r.skAbort = false
		r.exit.exiting = false
		r.exit.code = 1
		return ""
	}
	return res
}

// skArithTest is [[ x OP y ]] for -eq, -ne, -lt, -le, -gt and -ge,
// whose operands are arithmetic expressions.
func (r *Runner) skArithTest(x *syntax.BinaryTest) string {
	var n [2]int
	for i, e := range []syntax.TestExpr{x.X, x.Y} {
		w, ok := e.(*syntax.Word)
		if !ok {
			return ""
		}
		v, err := expand.SkillrunArithText(r.ecfg, r.literal(w))
		if err != nil {
			if !r.skArithMsg(err, "[[: ") {
				r.expandErr(err)
			}
			r.exit.code = 1
			return ""
		}
		n[i] = v
	}
	var ok bool
	switch x.Op {
	case syntax.TsEql:
		ok = n[0] == n[1]
	case syntax.TsNeq:
		ok = n[0] != n[1]
	case syntax.TsLss:
		ok = n[0] < n[1]
	case syntax.TsLeq:
		ok = n[0] <= n[1]
	case syntax.TsGtr:
		ok = n[0] > n[1]
	case syntax.TsGeq:
		ok = n[0] >= n[1]
	}
	if ok {
		return "1"
	}
	return ""
}
