package analyze

import (
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// namespaceAliases maps the namespaces LLM-written Clojure uses to the
// canonical namespace of the builtin table ("" is clojure.core).
var namespaceAliases = map[string]string{
	"clojure.core":                         "",
	"core":                                 "",
	"clojure.string":                       "clojure.string",
	"str":                                  "clojure.string",
	"string":                               "clojure.string",
	"s":                                    "clojure.string",
	"clojure.set":                          "clojure.set",
	"set":                                  "clojure.set",
	"clojure.walk":                         "clojure.walk",
	"walk":                                 "clojure.walk",
	"w":                                    "clojure.walk",
	"clojure.zip":                          "clojure.zip",
	"zip":                                  "clojure.zip",
	"clojure.data":                         "clojure.data",
	"regex":                                "",
	"clojure.edn":                          "clojure.edn",
	"edn":                                  "clojure.edn",
	"json":                                 "json",
	"clojure.data.json":                    "json",
	"cheshire.core":                        "json",
	"cheshire":                             "json",
	"Math":                                 "Math",
	"UUID":                                 "UUID",
	"java.util.UUID":                       "UUID",
	"clojure.pprint":                       "clojure.pprint",
	"pprint":                               "clojure.pprint",
	"pp":                                   "clojure.pprint",
	"clojure.math":                         "clojure.math",
	"math":                                 "clojure.math",
	"java.lang.Math":                       "Math",
	"StrictMath":                           "Math",
	"Double":                               "Double",
	"java.lang.Double":                     "Double",
	"Long":                                 "Long",
	"java.lang.Long":                       "Long",
	"Integer":                              "Integer",
	"java.lang.Integer":                    "Integer",
	"String":                               "String",
	"java.lang.String":                     "String",
	"Character":                            "Character",
	"java.lang.Character":                  "Character",
	"Short":                                "Short",
	"java.lang.Short":                      "Short",
	"Byte":                                 "Byte",
	"java.lang.Byte":                       "Byte",
	"Float":                                "Float",
	"java.lang.Float":                      "Float",
	"Boolean":                              "Boolean",
	"java.lang.Boolean":                    "Boolean",
	"System":                               "System",
	"java.lang.System":                     "System",
	"Thread":                               "Thread",
	"java.lang.Thread":                     "Thread",
	"LocalDate":                            "LocalDate",
	"java.time.LocalDate":                  "LocalDate",
	"LocalDateTime":                        "LocalDateTime",
	"Pattern":                              "Pattern",
	"java.util.regex.Pattern":              "Pattern",
	"Arrays":                               "Arrays",
	"java.util.Arrays":                     "Arrays",
	"Collections":                          "Collections",
	"java.util.Collections":                "Collections",
	"java.time.LocalDateTime":              "LocalDateTime",
	"ChronoUnit":                           "ChronoUnit",
	"java.time.temporal.ChronoUnit":        "ChronoUnit",
	"DayOfWeek":                            "DayOfWeek",
	"java.time.DayOfWeek":                  "DayOfWeek",
	"Instant":                              "Instant",
	"DateTimeFormatter":                    "DateTimeFormatter",
	"java.time.format.DateTimeFormatter":   "DateTimeFormatter",
	"java.time.Instant":                    "Instant",
	"ZonedDateTime":                        "ZonedDateTime",
	"java.time.ZonedDateTime":              "ZonedDateTime",
	"OffsetDateTime":                       "OffsetDateTime",
	"java.time.OffsetDateTime":             "OffsetDateTime",
	"ZoneId":                               "ZoneId",
	"java.time.ZoneId":                     "ZoneId",
	"ZoneOffset":                           "ZoneOffset",
	"java.time.ZoneOffset":                 "ZoneOffset",
	"Month":                                "Month",
	"java.time.Month":                      "Month",
	"Period":                               "Period",
	"java.time.Period":                     "Period",
	"Duration":                             "Duration",
	"java.time.Duration":                   "Duration",
	"TemporalAdjusters":                    "TemporalAdjusters",
	"java.time.temporal.TemporalAdjusters": "TemporalAdjusters",
	"TextStyle":                            "TextStyle",
	"java.time.format.TextStyle":           "TextStyle",
	"Locale":                               "Locale",
	"java.util.Locale":                     "Locale",
	"Objects":                              "Objects",
	"java.util.Objects":                    "Objects",
	"Comparator":                           "Comparator",
	"java.util.Comparator":                 "Comparator",
	"Base64":                               "Base64",
	"java.util.Base64":                     "Base64",
	"URLEncoder":                           "URLEncoder",
	"java.net.URLEncoder":                  "URLEncoder",
	"URLDecoder":                           "URLDecoder",
	"java.net.URLDecoder":                  "URLDecoder",
	"StandardCharsets":                     "StandardCharsets",
	"java.nio.charset.StandardCharsets":    "StandardCharsets",
	"NumberFormat":                         "NumberFormat",
	"java.text.NumberFormat":               "NumberFormat",
	"YearMonth":                            "YearMonth",
	"java.time.YearMonth":                  "YearMonth",
	"LocalTime":                            "LocalTime",
	"java.time.LocalTime":                  "LocalTime",
	"BigDecimal":                           "BigDecimal",
	"java.math.BigDecimal":                 "BigDecimal",
	"BigInteger":                           "BigInteger",
	"java.math.BigInteger":                 "BigInteger",
	"RoundingMode":                         "RoundingMode",
	"java.math.RoundingMode":               "RoundingMode",
	"Interop":                              "",
	"clojure.lang.PersistentQueue":         "clojure.lang.PersistentQueue",
}

// CanonicalNamespace returns the canonical builtin namespace for an alias
// such as "str" or "clojure.core", and whether the namespace is known.
func CanonicalNamespace(ns string) (string, bool) {
	c, ok := namespaceAliases[ns]
	return c, ok
}

// symbol analyzes a symbol in value position.
func (a *analyzer) symbol(s *syntax.Symbol) Expr {
	if s.Ns == "" {
		fp := fingerprint(s.Name)
		if f := a.fn; f.mayBeLocal(fp) {
			// A local of this function, the most frequent case, is made
			// here; a capture or self by notHere.
			if slot, ok := f.lookup(s.Name, fp); ok {
				p := a.locals.take()
				if p == nil {
					p = a.locals.grow()
				}
				p.Off, p.Slot, p.Name = s.Start, int32(slot), s.Name
				return p
			}
		}
		return a.notHere(s, fp)
	}
	return a.qualifiedSymbol(s)
}

// notHere is symbol for a name without a namespace, of fingerprint fp,
// that is not a local of the current function (fill and symbol look
// there first, in place).
func (a *analyzer) notHere(s *syntax.Symbol, fp uint32) Expr {
	if f := a.fn; f.mayBeLocal(fp) {
		if e, ok := a.resolveOuter(f, s.Name, fp, s.Start); ok {
			return e
		}
	}
	// A name found to be just a builtin, with nothing since that could
	// change that (see epoch), is that builtin again: the checks of
	// unqualified would all come to the same answer.
	if e := &a.builtinSeen[seenIndex(fp)]; uint32(e.plain) == a.epoch && e.fp == fp && len(e.name) == len(s.Name) && (len(s.Name) <= 3 || e.name == s.Name) {
		return builtinOf(s)
	}
	return a.unqualified(s, fp)
}

// unqualified is symbol for a name without a namespace that is neither
// a local nor a builtin named before; fp is its fingerprint. (The hot
// paths of symbol stay small, without the frame this one needs.)
func (a *analyzer) unqualified(s *syntax.Symbol, fp uint32) Expr {
	pos := s.Start
	switch s.Name {
	case "*1", "*2", "*3":
		n, _ := strconv.Atoi(s.Name[1:])
		return &HistoryRef{At: At{pos}, N: n}
	case "&":
		return a.errorf(pos, "invalid_form", "& is only allowed in parameter and destructuring vectors")
	}
	if len(a.macros) > 0 && a.macros[s.Name] {
		return a.errorf(pos, "invalid_form", "%s is a macro: it cannot be used as a value; call it, (%s ...)", s.Name, s.Name)
	}
	if isPlaceholder(s.Name) {
		if n, err := strconv.Atoi(s.Name[1:]); err == nil && n > maxPlaceholder {
			return a.errorf(pos, "invalid_placeholder",
				"placeholder %s is too large: #() takes at most %%%d; use (fn [...] ...) for more parameters", s.Name, maxPlaceholder)
		}
		return a.errorf(pos, "invalid_placeholder",
			"placeholder %s can only be used inside #(...) anonymous function syntax", s.Name)
	}
	if len(a.refers) > 0 {
		if q, ok := a.refers[s.Name]; ok && !a.defSet[s.Name] {
			return a.builtinRef(q, pos) // (require '[clojure.walk :refer [postwalk]])
		}
	}
	if a.isBuiltinFP(s.Name, fp) {
		if !a.isShadowed(s.Name) {
			if a.epoch <= maxEpoch && !isSpecialName(s.Name) && !isInteropName(s.Name) && !isReplaceableMacro(s.Name) {
				// The entry of s.Name, just made or found: see plain.
				a.builtinSeen[seenIndex(fp)].plain = uint16(a.epoch)
			}
			return builtinOf(s)
		}
		a.useGlobal(s.Name, pos)
		return a.globalRefs.new(Global{At: At{pos}, Name: s.Name})
	}
	if a.defSet[s.Name] {
		a.useGlobal(s.Name, pos)
		return a.globalRefs.new(Global{At: At{pos}, Name: s.Name})
	}
	for _, ns := range a.referAll {
		if a.isBuiltin(ns + "/" + s.Name) {
			return a.builtinRef(ns+"/"+s.Name, pos)
		}
	}
	if isSpecialName(s.Name) {
		return a.errorf(pos, "invalid_form",
			"%s is a special form, not a function: it cannot be used as a value; wrap it, e.g. #(%s ...)", s.Name, s.Name)
	}
	// A name with a hint (atom, try, type...) is still a global: an
	// earlier run may have defined it in the namespace, and the runtime
	// reports the hint when it has not. Should the program fail to
	// analyze anyway, the hint joins the errors (see finish).
	if a.cfg.Hint != nil {
		if h := a.cfg.Hint(s.Name); h != "" {
			a.hinted = append(a.hinted, &Error{Pos: a.lines.Pos(pos), Kind: "unbound_var", Msg: h})
			a.useGlobal(s.Name, pos)
			return &Global{At: At{pos}, Name: s.Name}
		}
	}
	if strings.HasPrefix(s.Name, ".") && len(s.Name) > 1 {
		return a.errorf(pos, "invalid_form",
			"Java method %s can only be called, and only the supported ones: see the language reference", s.Name)
	}
	a.useGlobal(s.Name, pos)
	return &Global{At: At{pos}, Name: s.Name}
}

// qualifiedSymbol is symbol for ns/name.
func (a *analyzer) qualifiedSymbol(s *syntax.Symbol) Expr {
	pos := s.Start
	ns := s.Ns
	if _, aliased := a.aliases[ns]; aliased {
		ns = "" // (require '[clojure.data :as data]): data/diff is clojure.data's
	}
	switch ns {
	case "ctx", "data":
		return &CtxRef{At: At{pos}, Name: s.Name}
	case "memory":
		return &MemoryGet{At: At{pos}, Key: &Keyword{At: At{pos}, Name: s.Name}}
	case "tool":
		return a.errorf(pos, "invalid_form",
			"tool/%s is a tool, not a value: call it, e.g. (tool/%s {...}), or wrap it: #(tool/%s %%)", s.Name, s.Name, s.Name)
	}
	if name, ok := a.qualified(s); ok {
		return a.builtinRef(name, pos)
	}
	if name, ok := a.methodValue(s.Ns, s.Name); ok { // a class only the runtime knows: StringBuilder/new
		return a.builtinRef(name, pos)
	}
	return a.unknownQualified(s)
}

// methodValue resolves Clojure 1.12's method values: Class/.method is the
// instance method .method, Class/new the constructor Class.
func (a *analyzer) methodValue(class, name string) (string, bool) {
	simple := class[strings.LastIndexByte(class, '.')+1:]
	if simple == "" || simple[0] < 'A' || simple[0] > 'Z' {
		return "", false
	}
	if len(name) > 1 && name[0] == '.' && a.isBuiltin(name) {
		return name, true
	}
	if name == "new" {
		for _, ctor := range []string{class + ".", simple + "."} {
			if a.isBuiltin(ctor) {
				return ctor, true
			}
		}
	}
	return "", false
}

// qualified resolves ns/name against the builtin table.
func (a *analyzer) qualified(s *syntax.Symbol) (string, bool) {
	ns, ok := a.canonicalNamespace(s.Ns)
	if !ok {
		return "", false
	}
	if ns != "" && a.isBuiltin(ns+"/"+s.Name) {
		return ns + "/" + s.Name, true
	}
	if name, ok := a.methodValue(ns, s.Name); ok {
		return name, true
	}
	if a.isBuiltin(s.Name) && !isSpecialName(s.Name) && (!isClassNamespace(ns) || boxedStatics[s.Name]) {
		return s.Name, true
	}
	return "", false
}

// isClassNamespace reports whether a canonical namespace is a Java class
// (Math, Integer, LocalDate...) rather than a Clojure namespace. A class's
// static members are its own: Integer/reverse is not reverse, so a name a
// class does not have is unknown rather than the core function of that name.
func isClassNamespace(ns string) bool {
	return ns != "" && (ns[0] >= 'A' && ns[0] <= 'Z' || strings.HasPrefix(ns, "clojure.lang."))
}

// boxedStatics are the static methods of the boxed number classes that
// are the core function of the same name: (Long/max a b), (Integer/compare
// a b).
var boxedStatics = map[string]bool{"max": true, "min": true, "compare": true}

func (a *analyzer) unknownQualified(s *syntax.Symbol) Expr {
	pos := a.pos(s)
	if ns, ok := a.canonicalNamespace(s.Ns); ok {
		if a.cfg.Hint != nil {
			// As written (java.lang.Math/random), then as the namespace's
			// canonical name (math/random is clojure.math/random), then bare.
			names := []string{s.Ns + "/" + s.Name, s.Name}
			if ns != "" && ns != s.Ns {
				names = []string{s.Ns + "/" + s.Name, ns + "/" + s.Name, s.Name}
			}
			for _, n := range names {
				if h := a.cfg.Hint(n); h != "" {
					return a.errorf(pos, "unbound_var", "%s", h)
				}
			}
		}
		return a.errorf(pos, "unbound_var", "%s/%s is not available in PTC-Lisp", s.Ns, s.Name)
	}
	if a.cfg.Hint != nil {
		// A Java class PTC-Lisp does not have (java.time.LocalDateTime/parse):
		// what to use instead, by its simple name.
		if h := a.cfg.Hint(s.Ns[strings.LastIndexByte(s.Ns, '.')+1:]); h != "" {
			return a.errorf(pos, "unbound_var", "%s (in %s/%s)", h, s.Ns, s.Name)
		}
	}
	return a.errorf(pos, "unbound_var",
		"unknown namespace %s/ in %s/%s: use ctx/name for context data, (tool/name args) for tools, memory/name for stored values",
		s.Ns, s.Ns, s.Name)
}

func isPlaceholder(name string) bool {
	if name == "%" || name == "%&" {
		return true
	}
	if len(name) < 2 || name[0] != '%' {
		return false
	}
	for _, c := range name[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// maxPlaceholder is the highest %N a #() function may use.
const maxPlaceholder = 20

// coreSpecial are the forms a local binding cannot shadow: Clojure's
// special forms. Its macros (let, fn, loop, letfn, when ...) give way to a
// local of their name, as in Clojure: (defn step [{:keys [fn]}] (fn 1))
// calls the local.
func isCoreSpecial(name string) bool {
	switch name {
	case "if", "do", "let*", "fn*", "recur", "def", "quote", "var", "try", "throw":
		return true
	}
	return false
}

// isSpecialName reports whether name is a special form or macro of PTC-Lisp.
func isSpecialName(name string) bool {
	switch name {
	case "if", "if-not", "when", "when-not", "cond", "condp", "case", "if-let", "when-let",
		"if-some", "when-some", "when-first", "do", "let", "let*", "loop", "recur", "fn", "fn*", "def",
		"defn", "defn-", "defonce", "declare", "quote", "var", "and", "or", "->", "->>",
		"some->", "some->>", "cond->", "cond->>", "as->", "doseq", "for", "dotimes", "letfn",
		"where", "all-of", "any-of", "none-of", "return", "fail", "call", "comment", "assert",
		"ns", "require", "import", "use", "refer", "try", "throw", "lazy-seq", "lazy-cat", "with-out-str", "with-precision", "while", "doto", "memfn", "defrecord", "binding",
		"defmulti", "defmethod", "amap", "areduce", "defprotocol", "extend-type", "extend-protocol", "reify",
		"prefer-method", "remove-method", "remove-all-methods", "defmacro", "macroexpand", "macroexpand-1":
		return true
	}
	return false
}

// IsSpecialForm reports whether name is a special form or macro that the
// analyzer handles, so it cannot be a builtin or a host function. A
// program cannot def one either, except time, delay and future: Clojure
// programs def values of those names, which then replace the macro
// (isReplaceableMacro).
func IsSpecialForm(name string) bool { return isSpecialName(name) || isReplaceableMacro(name) }

// word4 is the first 4 bytes of s as one word (one load on most machines).
func word4(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
