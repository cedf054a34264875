package space

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Expr is a parsed `when` condition or rule. The language is small on
// purpose: literals (ints, floats, 'strings', "strings", true, false),
// knob names, arithmetic (+ - * / %), comparisons (== != < <= > >=),
// `in [..]`, `not`/`!`, `and`/`&&`, `or`/`||` and parentheses.
type Expr struct {
	src  string
	root node
}

// Idents lists the names the expression reads, in order of appearance.
func (e *Expr) Idents() []string {
	var out []string
	seen := map[string]bool{}
	e.root.walk(func(n node) {
		if id, ok := n.(ident); ok && !seen[string(id)] {
			seen[string(id)] = true
			out = append(out, string(id))
		}
	})
	return out
}

func (e *Expr) String() string { return e.src }

// Eval evaluates the expression as a condition. A knob that is absent, or
// "default", is unknown: a comparison or arithmetic on it is "not
// applicable", which Eval reports as ok=false so callers choose the meaning
// (a rule that cannot apply is satisfied; a `when` that cannot apply is false).
func (e *Expr) Eval(vars map[string]any) (result, ok bool) {
	b, err := e.try(vars)
	return b, err == nil
}

// try evaluates the expression as a condition. Its error wraps errNA when
// a knob it needs is absent or "default"; any other error means the
// expression cannot be evaluated on vars at all (a type error, a division
// by zero, a number where a condition belongs).
func (e *Expr) try(vars map[string]any) (bool, error) {
	v, err := e.root.eval(vars)
	if err != nil {
		return false, err
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, fmt.Errorf("is %s, not a condition (true or false)", describe(v))
	}
	return b, nil
}

// ParseExpr parses src.
func ParseExpr(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tEOF {
		return nil, fmt.Errorf("unexpected %q at column %d", p.peek().text, p.peek().pos+1)
	}
	return &Expr{src: src, root: n}, nil
}

type tokKind int

const (
	tEOF tokKind = iota
	tNum
	tStr
	tIdent
	tOp
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case unicode.IsDigit(c) || (c == '.' && i+1 < len(s) && unicode.IsDigit(rune(s[i+1]))):
			j := i
			for j < len(s) && (unicode.IsDigit(rune(s[j])) || s[j] == '.' || s[j] == '_' || s[j] == 'e' || s[j] == 'E') {
				j++
			}
			toks = append(toks, token{tNum, s[i:j], i})
			i = j
		case c == '"' || c == '\'':
			j := strings.IndexByte(s[i+1:], s[i])
			if j < 0 {
				return nil, fmt.Errorf("unterminated string at column %d", i+1)
			}
			toks = append(toks, token{tStr, s[i+1 : i+1+j], i})
			i += j + 2
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(s) && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])) || s[j] == '_') {
				j++
			}
			toks = append(toks, token{tIdent, s[i:j], i})
			i = j
		default:
			op := ""
			for _, cand := range []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]", ",", "!"} {
				if strings.HasPrefix(s[i:], cand) {
					op = cand
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unexpected character %q at column %d", c, i+1)
			}
			toks = append(toks, token{tOp, op, i})
			i += len(op)
		}
	}
	return append(toks, token{tEOF, "end of expression", len(s)}), nil
}

// maxExprDepth bounds nesting (parentheses, not, unary minus) so that a
// hostile expression cannot exhaust the stack of the recursive parser.
const maxExprDepth = 100

type parser struct {
	toks  []token
	i     int
	depth int
}

// nest enters one level of nesting; the caller defers p.depth--.
func (p *parser) nest() error {
	if p.depth++; p.depth > maxExprDepth {
		return fmt.Errorf("expression nested more than %d deep at column %d", maxExprDepth, p.peek().pos+1)
	}
	return nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) accept(texts ...string) (string, bool) {
	t := p.peek()
	if t.kind != tOp && t.kind != tIdent {
		return "", false
	}
	for _, s := range texts {
		if t.text == s {
			p.i++
			return s, true
		}
	}
	return "", false
}

func (p *parser) or() (node, error) {
	l, err := p.and()
	for err == nil {
		if _, ok := p.accept("||", "or"); !ok {
			return l, nil
		}
		var r node
		if r, err = p.and(); err == nil {
			l = binary{"||", l, r}
		}
	}
	return nil, err
}

func (p *parser) and() (node, error) {
	l, err := p.not()
	for err == nil {
		if _, ok := p.accept("&&", "and"); !ok {
			return l, nil
		}
		var r node
		if r, err = p.not(); err == nil {
			l = binary{"&&", l, r}
		}
	}
	return nil, err
}

func (p *parser) not() (node, error) {
	if err := p.nest(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if _, ok := p.accept("!", "not"); ok {
		n, err := p.not()
		return unary{"!", n}, err
	}
	return p.cmp()
}

func (p *parser) cmp() (node, error) {
	l, err := p.sum()
	if err != nil {
		return nil, err
	}
	if op, ok := p.accept("==", "!=", "<=", ">=", "<", ">"); ok {
		r, err := p.sum()
		return binary{op, l, r}, err
	}
	if _, ok := p.accept("in"); ok {
		if _, ok := p.accept("["); !ok {
			return nil, fmt.Errorf("expected [ after in at column %d", p.peek().pos+1)
		}
		var items []node
		for {
			it, err := p.sum()
			if err != nil {
				return nil, err
			}
			items = append(items, it)
			if _, ok := p.accept(","); !ok {
				break
			}
		}
		if _, ok := p.accept("]"); !ok {
			return nil, fmt.Errorf("expected ] at column %d", p.peek().pos+1)
		}
		return inList{l, items}, nil
	}
	return l, nil
}

func (p *parser) sum() (node, error) {
	l, err := p.product()
	for err == nil {
		op, ok := p.accept("+", "-")
		if !ok {
			return l, nil
		}
		var r node
		if r, err = p.product(); err == nil {
			l = binary{op, l, r}
		}
	}
	return nil, err
}

func (p *parser) product() (node, error) {
	l, err := p.unaryMinus()
	for err == nil {
		op, ok := p.accept("*", "/", "%")
		if !ok {
			return l, nil
		}
		var r node
		if r, err = p.unaryMinus(); err == nil {
			l = binary{op, l, r}
		}
	}
	return nil, err
}

func (p *parser) unaryMinus() (node, error) {
	if err := p.nest(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if _, ok := p.accept("-"); ok {
		n, err := p.unaryMinus()
		return unary{"-", n}, err
	}
	return p.primary()
}

func (p *parser) primary() (node, error) {
	t := p.next()
	switch t.kind {
	case tNum:
		txt := strings.ReplaceAll(t.text, "_", "")
		if n, err := strconv.ParseInt(txt, 10, 64); err == nil {
			return lit{n}, nil
		}
		f, err := strconv.ParseFloat(txt, 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q at column %d", t.text, t.pos+1)
		}
		return lit{f}, nil
	case tStr:
		return lit{t.text}, nil
	case tIdent:
		switch t.text {
		case "true":
			return lit{true}, nil
		case "false":
			return lit{false}, nil
		case "and", "or", "not", "in":
			return nil, fmt.Errorf("unexpected %q at column %d", t.text, t.pos+1)
		}
		return ident(t.text), nil
	case tOp:
		if t.text == "(" {
			n, err := p.or()
			if err != nil {
				return nil, err
			}
			if _, ok := p.accept(")"); !ok {
				return nil, fmt.Errorf("expected ) at column %d", p.peek().pos+1)
			}
			return n, nil
		}
	}
	return nil, fmt.Errorf("unexpected %q at column %d", t.text, t.pos+1)
}

// errNA marks an operand that is absent or "default".
var errNA = errors.New("not applicable")

type node interface {
	eval(vars map[string]any) (any, error)
	walk(func(node))
}

type lit struct{ v any }
type ident string
type unary struct {
	op string
	x  node
}
type binary struct {
	op   string
	l, r node
}
type inList struct {
	x     node
	items []node
}

func (n lit) eval(map[string]any) (any, error) { return n.v, nil }
func (n lit) walk(f func(node))                { f(n) }

func (n ident) eval(vars map[string]any) (any, error) {
	v, ok := vars[string(n)]
	if !ok {
		return nil, errNA
	}
	if s, isStr := v.(string); isStr && s == Default {
		return nil, errNA
	}
	return Normalize(v), nil
}
func (n ident) walk(f func(node)) { f(n) }

func (n unary) walk(f func(node)) { f(n); n.x.walk(f) }
func (n unary) eval(vars map[string]any) (any, error) {
	v, err := n.x.eval(vars)
	if err != nil {
		return nil, err
	}
	if n.op == "!" {
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("not needs true or false, got %s", describe(v))
		}
		return !b, nil
	}
	switch x := v.(type) {
	case int64:
		return -x, nil
	case float64:
		return -x, nil
	}
	return nil, fmt.Errorf("- needs a number, got %s", describe(v))
}

func (n inList) walk(f func(node)) {
	f(n)
	n.x.walk(f)
	for _, it := range n.items {
		it.walk(f)
	}
}
func (n inList) eval(vars map[string]any) (any, error) {
	v, err := n.x.eval(vars)
	if err != nil {
		return nil, err
	}
	for _, it := range n.items {
		w, err := it.eval(vars)
		if err != nil {
			return nil, err
		}
		if eq, ok := equal(v, w); ok && eq {
			return true, nil
		}
	}
	return false, nil
}

func (n binary) walk(f func(node)) { f(n); n.l.walk(f); n.r.walk(f) }
func (n binary) eval(vars map[string]any) (any, error) {
	if n.op == "&&" || n.op == "||" {
		return n.logic(vars)
	}
	l, err := n.l.eval(vars)
	if err != nil {
		return nil, err
	}
	r, err := n.r.eval(vars)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "==", "!=":
		eq, ok := equal(l, r)
		if !ok {
			return nil, fmt.Errorf("cannot compare %s and %s", describe(l), describe(r))
		}
		return eq == (n.op == "=="), nil
	}
	lf, lok := Number(l, false)
	rf, rok := Number(r, false)
	if !lok || !rok {
		return nil, fmt.Errorf("%s needs numbers, got %s and %s", n.op, describe(l), describe(r))
	}
	switch n.op {
	case "<":
		return lf < rf, nil
	case "<=":
		return lf <= rf, nil
	case ">":
		return lf > rf, nil
	case ">=":
		return lf >= rf, nil
	}
	li, lInt := l.(int64)
	ri, rInt := r.(int64)
	if lInt && rInt && n.op != "/" {
		switch n.op {
		case "+":
			return li + ri, nil
		case "-":
			return li - ri, nil
		case "*":
			return li * ri, nil
		case "%":
			if ri == 0 {
				return nil, fmt.Errorf("modulo by zero")
			}
			return li % ri, nil
		}
	}
	switch n.op {
	case "+":
		return lf + rf, nil
	case "-":
		return lf - rf, nil
	case "*":
		return lf * rf, nil
	case "/":
		if rf == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		return lf / rf, nil
	case "%":
		if rf == 0 {
			return nil, fmt.Errorf("modulo by zero")
		}
		return math.Mod(lf, rf), nil
	}
	return nil, fmt.Errorf("unknown operator %s", n.op)
}

// logic short-circuits, and treats a not-applicable side as unknown
// (three-valued): false && unknown = false, true || unknown = true.
func (n binary) logic(vars map[string]any) (any, error) {
	l, lerr := n.l.eval(vars)
	lb, lok := l.(bool)
	if lerr == nil && !lok {
		return nil, fmt.Errorf("%s needs true or false, got %s", n.op, describe(l))
	}
	if lerr == nil && (n.op == "&&" && !lb || n.op == "||" && lb) {
		return lb, nil
	}
	r, rerr := n.r.eval(vars)
	rb, rok := r.(bool)
	if rerr == nil && !rok {
		return nil, fmt.Errorf("%s needs true or false, got %s", n.op, describe(r))
	}
	if rerr == nil && (n.op == "&&" && !rb || n.op == "||" && rb) {
		return rb, nil
	}
	if lerr != nil {
		return nil, lerr
	}
	if rerr != nil {
		return nil, rerr
	}
	return rb, nil
}

func equal(a, b any) (eq, ok bool) {
	if af, aok := Number(a, false); aok {
		bf, bok := Number(b, false)
		return af == bf, bok
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return x == y, ok
	case bool:
		y, ok := b.(bool)
		return x == y, ok
	}
	return false, false
}

// Number evaluates the expression as a number (gpus_per_trial); ok is
// false when a knob it needs is absent or "default", or it is not a
// number.
func (e *Expr) Number(vars map[string]any) (float64, bool) {
	v, err := e.root.eval(vars)
	if err != nil {
		return 0, false
	}
	return Number(v, false)
}
