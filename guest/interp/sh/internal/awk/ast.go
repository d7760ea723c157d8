package awk

import "regexp"

// Expr is an expression node; the interpreter switches on its type.
type Expr interface{ isExpr() }

// Stmt is a statement node.
type Stmt interface{ isStmt() }

type (
	// NumLit is a numeric constant.
	NumLit struct{ N float64 }
	// StrLit is a string constant.
	StrLit struct{ S string }
	// RegexLit is /re/; alone it means $0 ~ /re/.
	RegexLit struct {
		Src string
		Re  *regexp.Regexp
	}
	// VarRef names a variable: a global slot, or a local one of the
	// function being run.
	VarRef struct {
		Name  string
		Local bool
		Idx   int
	}
	// FieldRef is $Index.
	FieldRef struct{ Index Expr }
	// IndexExpr is Array[Index...], the subscripts joined with SUBSEP.
	IndexExpr struct {
		Array *VarRef
		Index []Expr
	}
	// AssignExpr is Lhs Op= Rhs; Op is "" for plain assignment.
	AssignExpr struct {
		Lhs Expr
		Op  string
		Rhs Expr
	}
	// CondExpr is Cond ? Yes : No.
	CondExpr struct{ Cond, Yes, No Expr }
	// BinaryExpr is an arithmetic, comparison or logical operator.
	BinaryExpr struct {
		Op   string
		L, R Expr
	}
	// MatchExpr is L ~ R or L !~ R.
	MatchExpr struct {
		Neg  bool
		L, R Expr
	}
	// ConcatExpr is implicit concatenation.
	ConcatExpr struct{ L, R Expr }
	// InExpr is (Index...) in Array.
	InExpr struct {
		Index []Expr
		Array *VarRef
	}
	// UnaryExpr is -X, +X or !X.
	UnaryExpr struct {
		Op string
		X  Expr
	}
	// IncDecExpr is ++X, --X, X++ or X--.
	IncDecExpr struct {
		X   Expr
		Op  string
		Pre bool
	}
	// GroupExpr is a parenthesised list "(a, b)", which is only valid as
	// print's arguments.
	GroupExpr struct{ List []Expr }
	// CallExpr calls a built-in function.
	CallExpr struct {
		Name string
		Args []Expr
	}
	// UserCall calls a user-defined function, resolved after parsing.
	UserCall struct {
		Name string
		Args []Expr
		Fn   *Func
		Pos  token
	}
	// GetlineExpr is one of the getline forms: plain (Src nil), from a
	// file ("<" Src) or from a command (Src "|").
	GetlineExpr struct {
		Kind string // "", "<" or "|"
		Src  Expr
		Var  Expr // nil: sets $0
	}
)

type (
	// ExprStmt evaluates an expression for its effect.
	ExprStmt struct{ X Expr }
	// PrintStmt is print or printf with an optional redirection.
	PrintStmt struct {
		Printf bool
		Args   []Expr
		Redir  string // "", ">", ">>" or "|"
		Dest   Expr
	}
	// IfStmt is if/else.
	IfStmt struct {
		Cond Expr
		Then Stmt
		Else Stmt
	}
	// WhileStmt is while (Cond) Body.
	WhileStmt struct {
		Cond Expr
		Body Stmt
	}
	// DoStmt is do Body while (Cond).
	DoStmt struct {
		Body Stmt
		Cond Expr
	}
	// ForStmt is for (Init; Cond; Post) Body; any part may be nil.
	ForStmt struct {
		Init Stmt
		Cond Expr
		Post Stmt
		Body Stmt
	}
	// ForInStmt is for (Var in Array) Body.
	ForInStmt struct {
		Var   *VarRef
		Array *VarRef
		Body  Stmt
	}
	// BlockStmt is { ... }.
	BlockStmt struct{ List []Stmt }
	// CtrlStmt is next, nextfile, break or continue.
	CtrlStmt struct{ Ctrl ctrl }
	// ExitStmt is exit [Status].
	ExitStmt struct{ Status Expr }
	// ReturnStmt is return [Value].
	ReturnStmt struct{ Value Expr }
	// DeleteStmt is delete Array[Index] or, with no Index, delete Array.
	DeleteStmt struct {
		Array *VarRef
		Index []Expr
	}
)

// Rule is a pattern-action pair. A nil Pattern matches every record;
// Pattern2 non-nil makes a range. A nil Action prints the record.
type Rule struct {
	Pattern, Pattern2 Expr
	Action            *BlockStmt
}

// Func is a user-defined function.
type Func struct {
	Name   string
	Params []string
	Body   *BlockStmt
}

// Program is a parsed awk program.
type Program struct {
	Begin, End []*BlockStmt
	Rules      []*Rule
	Funcs      map[string]*Func
	Globals    map[string]int // name to slot
}

func (*NumLit) isExpr()      {}
func (*StrLit) isExpr()      {}
func (*RegexLit) isExpr()    {}
func (*VarRef) isExpr()      {}
func (*FieldRef) isExpr()    {}
func (*IndexExpr) isExpr()   {}
func (*AssignExpr) isExpr()  {}
func (*CondExpr) isExpr()    {}
func (*BinaryExpr) isExpr()  {}
func (*MatchExpr) isExpr()   {}
func (*ConcatExpr) isExpr()  {}
func (*InExpr) isExpr()      {}
func (*UnaryExpr) isExpr()   {}
func (*IncDecExpr) isExpr()  {}
func (*GroupExpr) isExpr()   {}
func (*CallExpr) isExpr()    {}
func (*UserCall) isExpr()    {}
func (*GetlineExpr) isExpr() {}

func (*ExprStmt) isStmt()   {}
func (*PrintStmt) isStmt()  {}
func (*IfStmt) isStmt()     {}
func (*WhileStmt) isStmt()  {}
func (*DoStmt) isStmt()     {}
func (*ForStmt) isStmt()    {}
func (*ForInStmt) isStmt()  {}
func (*BlockStmt) isStmt()  {}
func (*CtrlStmt) isStmt()   {}
func (*ExitStmt) isStmt()   {}
func (*ReturnStmt) isStmt() {}
func (*DeleteStmt) isStmt() {}
