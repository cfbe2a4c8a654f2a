package lisp

import (
	"errors"
	"slices"
	"strings"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// Exceptions: try/catch/finally, throw and ex-info, as Clojure has them.
//
// An exception travels through the evaluator as an *Error, like every
// failure, so that positions, pmap and the host see it as they see any
// error. A catch clause turns the *Error into an *Exception value (or finds
// the one (throw x) carried) and tests its Java class against the clause's.
// The class of an error of the program follows from its Kind (javaClassOf),
// unless the code that raised it named one (Error.Class): a builtin that
// fails the way a Java method would names that method's exception, e.g.
// Long/parseLong of garbage raises a NumberFormatException:
//
//	e := errorf(InvalidArgument, "...")
//	e.Class = classNumberFormat.name
//
// Limits, cancellation, internal errors and (return v)/(fail v) are never
// caught (catchable), and a finally does not run for them: they end the
// program at once.

// javaClass is a Java exception class as catch clauses name it.
type javaClass struct {
	name   string // fully qualified: java.lang.ArithmeticException
	parent *javaClass
}

// simpleName is the name without its package: ArithmeticException.
func (c *javaClass) simpleName() string { return c.name[strings.LastIndexByte(c.name, '.')+1:] }

// isa reports whether c is ancestor or one of its subclasses.
func (c *javaClass) isa(ancestor *javaClass) bool {
	for x := c; x != nil; x = x.parent {
		if x == ancestor {
			return true
		}
	}
	return false
}

func newClass(name string, parent *javaClass) *javaClass {
	return &javaClass{name: name, parent: parent}
}

// The classes programs catch, and the ones the runtime raises. Read-only
// after initialisation.
var (
	classThrowable              = newClass("java.lang.Throwable", nil)
	classException              = newClass("java.lang.Exception", classThrowable)
	classJavaError              = newClass("java.lang.Error", classThrowable)
	classAssertionError         = newClass("java.lang.AssertionError", classJavaError)
	classVMError                = newClass("java.lang.VirtualMachineError", classJavaError)
	classStackOverflow          = newClass("java.lang.StackOverflowError", classVMError)
	classOutOfMemory            = newClass("java.lang.OutOfMemoryError", classVMError)
	classRuntime                = newClass("java.lang.RuntimeException", classException)
	classExceptionInfo          = newClass("clojure.lang.ExceptionInfo", classRuntime)
	classArithmetic             = newClass("java.lang.ArithmeticException", classRuntime)
	classIllegalArgument        = newClass("java.lang.IllegalArgumentException", classRuntime)
	classNumberFormat           = newClass("java.lang.NumberFormatException", classIllegalArgument)
	classArity                  = newClass("clojure.lang.ArityException", classIllegalArgument)
	classPatternSyntax          = newClass("java.util.regex.PatternSyntaxException", classIllegalArgument)
	classIllegalState           = newClass("java.lang.IllegalStateException", classRuntime)
	classClassCast              = newClass("java.lang.ClassCastException", classRuntime)
	classNullPointer            = newClass("java.lang.NullPointerException", classRuntime)
	classIndexOutOfBound        = newClass("java.lang.IndexOutOfBoundsException", classRuntime)
	classStringIndex            = newClass("java.lang.StringIndexOutOfBoundsException", classIndexOutOfBound)
	classArrayIndex             = newClass("java.lang.ArrayIndexOutOfBoundsException", classIndexOutOfBound)
	classUnsupported            = newClass("java.lang.UnsupportedOperationException", classRuntime)
	classArrayStore             = newClass("java.lang.ArrayStoreException", classRuntime)
	classNegativeArraySize      = newClass("java.lang.NegativeArraySizeException", classRuntime)
	classDateTime               = newClass("java.time.DateTimeException", classRuntime)
	classDateTimeParse          = newClass("java.time.format.DateTimeParseException", classDateTime)
	classExecution              = newClass("java.util.concurrent.ExecutionException", classException)
	classNoSuchElement          = newClass("java.util.NoSuchElementException", classRuntime)
	classEmptyStack             = newClass("java.util.EmptyStackException", classRuntime)
	classConcurrentModification = newClass("java.util.ConcurrentModificationException", classRuntime)
	classParse                  = newClass("java.text.ParseException", classException)
	classIllegalFormat          = newClass("java.util.IllegalFormatException", classIllegalArgument)
	classFormatConversion       = newClass("java.util.IllegalFormatConversionException", classIllegalFormat)
	classMissingFormatArgument  = newClass("java.util.MissingFormatArgumentException", classIllegalFormat)
	classUnknownFormat          = newClass("java.util.UnknownFormatConversionException", classIllegalFormat)
)

// exceptionClasses maps the names a catch clause may use to their classes: the
// fully qualified name, and the simple name, which Clojure resolves for
// java.lang and which models write for the others too (as if imported).
// Object and ClojureScript's :default catch everything catchable, as
// Throwable does (Clojure rejects both: a harmless superset).
var exceptionClasses = func() map[string]*javaClass {
	m := map[string]*javaClass{}
	for _, c := range []*javaClass{classThrowable, classException, classJavaError, classAssertionError, classVMError,
		classStackOverflow, classOutOfMemory, classRuntime, classExceptionInfo, classArithmetic,
		classIllegalArgument, classNumberFormat, classArity, classPatternSyntax, classIllegalState,
		classClassCast, classNullPointer, classIndexOutOfBound, classStringIndex, classArrayIndex,
		classUnsupported, classDateTime, classDateTimeParse, classArrayStore, classNegativeArraySize, classExecution, classNoSuchElement,
		classEmptyStack, classConcurrentModification, classParse, classIllegalFormat, classFormatConversion,
		classMissingFormatArgument, classUnknownFormat} {
		m[c.name] = c
		m[c.simpleName()] = c
	}
	m["Object"], m["java.lang.Object"], m[":default"] = classThrowable, classThrowable, classThrowable
	return m
}()

// lookupClass returns the class a catch clause names, or nil.
func lookupClass(name string) *javaClass { return exceptionClasses[name] }

// knownClassNames lists the simple names of the classes, for the error
// about an unknown one.
func knownClassNames() string {
	var names []string
	for name, c := range exceptionClasses {
		if name == c.simpleName() && name != "VirtualMachineError" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// catchable reports whether a try can catch an error of kind k: the
// errors of the program, not the limits of the sandbox, a cancellation, a
// bug of the interpreter, nor return and fail (which pmap and pcalls turn
// into their *_error kinds), which all end the program at once.
func catchable(k Kind) bool {
	switch k {
	case Timeout, Cancelled, StepLimitExceeded, MemoryExceeded, DepthExceeded, OutputExceeded,
		ToolLimitExceeded, LoopLimitExceeded, InternalError, PmapError, pcallsError:
		return false
	}
	return true
}

// javaClassOf is the class of an error as a catch clause sees it: the one
// its code named, else the one Clojure throws for the same mistake.
func javaClassOf(e *Error) *javaClass {
	if e.Class != "" {
		if c := lookupClass(e.Class); c != nil {
			return c
		}
	}
	switch e.Kind {
	case Thrown, ToolError, UnknownTool:
		return classExceptionInfo
	case TypeError, NotCallable:
		return classClassCast
	case ArithmeticError:
		return classArithmetic
	case InvalidArgument:
		return classIllegalArgument
	case ArityError, arityMismatch:
		return classArity
	case DestructureError:
		return classUnsupported // nth not supported on this type
	case AssertionError:
		return classAssertionError
	case UnboundVar:
		return classIllegalState // Clojure: Attempting to call unbound fn
	}
	return classRuntime
}

// JavaClass returns the fully qualified name of the Java class that a
// try/catch in the program sees for the error, such as
// "java.lang.ArithmeticException" or "clojure.lang.ExceptionInfo"
// (docs/language.md §14 has the table).
func (e *Error) JavaClass() string { return javaClassOf(e).name }

// Exception is an exception as a value: what ex-info returns and what a
// catch clause binds. It is immutable; two exceptions are equal only when
// they are the same one, as in Clojure.
type Exception struct {
	class   *javaClass
	message Value // a string, or nil: ex-info's message may be nil
	data    *Map  // ex-info's data (never nil for an ExceptionInfo); nil for the others
	cause   *Exception
	// err is the error of the program this exception was caught as, nil
	// for one ex-info made: rethrown, it fails as it first did (its kind,
	// message and position).
	err *Error
}

// ClassName returns the fully qualified name of the exception's Java class.
func (x *Exception) ClassName() string { return x.class.name }

// Message returns the exception's message ("" when it has none).
func (x *Exception) Message() string {
	s, _ := x.message.(string)
	return s
}

// Data returns the exception's data: ex-info's map, a tool error's
// {:tool :message ...}; nil for the others.
func (x *Exception) Data() *Map { return x.data }

// Cause returns the exception's cause, or nil.
func (x *Exception) Cause() *Exception { return x.cause }

// maxUncaughtMessage bounds the message of an uncaught exception's error:
// the program chooses the message, and errors are logged and shown whole.
const maxUncaughtMessage = 4000

// error is the *Error that throwing x fails with: a fresh one at each
// throw (it gets its position as it propagates, and a value thrown by two
// pmap branches must not share one).
func (x *Exception) error() *Error {
	if x.err != nil {
		e := *x.err
		e.exc, e.More = x, nil
		return &e
	}
	msg, _ := x.message.(string)
	if len(msg) > maxUncaughtMessage {
		msg = truncateRunes(msg, maxUncaughtMessage) + "..."
	}
	if msg == "" {
		msg = "(an exception with no message)"
	}
	e := &Error{Kind: Thrown, Message: msg, Class: x.class.name, exc: x}
	if x.data != nil {
		e.Data = x.data
	}
	if x.cause != nil {
		e.Err = x.cause.error()
	}
	return e
}

// catchableError returns err as the *Error a try may catch, or false:
// not an error of the program (return, fail), a limit, or the failure of
// a tool that ran into a limit of its own (its error satisfies errors.Is
// for a limit kind: an agent whose tree ran out of turns), which ends the
// program as the limit would.
func catchableError(err error) (*Error, bool) {
	e, ok := err.(*Error)
	if !ok || !catchable(e.Kind) {
		return nil, false
	}
	if e.Kind == ToolError && e.Err != nil {
		for _, k := range []Kind{Timeout, Cancelled, StepLimitExceeded, MemoryExceeded, DepthExceeded,
			OutputExceeded, ToolLimitExceeded, LoopLimitExceeded} {
			if errors.Is(e.Err, k) {
				return nil, false
			}
		}
	}
	return e, true
}

// caughtException returns the exception a catch clause sees for err, or
// nil when err cannot be caught.
func (th *thread) caughtException(err error) (*Exception, error) {
	e, ok := catchableError(err)
	if !ok {
		return nil, nil
	}
	if e.exc != nil {
		return e.exc, nil
	}
	// A caught error becomes a value: a few slots of memory.
	if err := th.charge(4); err != nil {
		return nil, err
	}
	x := &Exception{class: javaClassOf(e), message: e.Message, err: e}
	if x.class == classExceptionInfo {
		x.data = errorData(e)
	}
	return x, nil
}

// errorData is the ex-data of an error of the program that is an
// ExceptionInfo: for a tool's failure, the tool and its message, with the
// tool's own data (Error.Data of the *Error it failed with).
func errorData(e *Error) *Map {
	b := NewMapBuilder(nil)
	if data, ok := e.Data.(*Map); ok {
		for k, v := range data.All() {
			b.Set(k, v)
		}
	}
	if e.Kind == ToolError || e.Kind == UnknownTool {
		if e.Op != "" {
			b.Set(Keyword("tool"), e.Op)
		}
		msg := e.Message
		if e.Err != nil && e.Kind == ToolError {
			msg = e.Err.Error()
			if inner, ok := e.Err.(*Error); ok {
				msg = inner.Message
			}
		}
		b.Set(Keyword("message"), msg)
	}
	return b.Map()
}

// exInfo is (ex-info msg data) and (ex-info msg data cause).
func exInfo(th *thread, a []Value) (Value, error) {
	msg := a[0]
	if _, ok := msg.(string); !ok && msg != nil {
		return nil, classError(TypeError, classClassCast, "ex-info expects a message string as argument 1, got %s", describe(msg))
	}
	var data *Map
	switch d := a[1].(type) {
	case *Map:
		data = d
	case nil:
		return nil, errorf(InvalidArgument, "ex-info expects a map of data as argument 2, got nil: give {} when there is none")
	default:
		return nil, classError(TypeError, classClassCast, "ex-info expects a map of data as argument 2, got %s", describe(d))
	}
	var cause *Exception
	if len(a) == 3 && a[2] != nil {
		c, ok := a[2].(*Exception)
		if !ok {
			return nil, classError(TypeError, classClassCast, "ex-info expects an exception (or nil) as its cause, argument 3, got %s", describe(a[2]))
		}
		cause = c
	}
	if err := th.charge(4); err != nil {
		return nil, err
	}
	return &Exception{class: classExceptionInfo, message: msg, data: data, cause: cause}, nil
}

// throwValue is (throw x): the error that carries x, or the ClassCastException
// (NullPointerException for nil) that Clojure throws for a value that is
// not an exception.
func throwValue(v Value) *Error {
	switch x := v.(type) {
	case *Exception:
		return x.error()
	case nil:
		return classError(TypeError, classNullPointer, "throw expects an exception, got nil: throw (ex-info \"what went wrong\" {:key value})")
	}
	return classError(TypeError, classClassCast, "throw expects an exception, got %s: throw (ex-info \"what went wrong\" {:key value})", TypeName(v))
}

// classError is errorf for an error of a given Java class.
func classError(kind Kind, class *javaClass, format string, args ...any) *Error {
	e := errorf(kind, format, args...)
	e.Class = class.name
	return e
}

func registerExceptions(t *builtinTable) {
	t.add("ex-info", 2, 3, exInfo)
	t.add("ex-data", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if x, ok := a[0].(*Exception); ok && x.data != nil {
			return x.data, nil
		}
		return nil, nil
	})
	t.add("ex-message", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if x, ok := a[0].(*Exception); ok {
			return x.message, nil
		}
		return nil, nil
	})
	t.add("ex-cause", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if x, ok := a[0].(*Exception); ok && x.cause != nil {
			return x.cause, nil
		}
		return nil, nil
	})
	// Java's constructors, (throw (Exception. "message")): a message (or
	// nil), a cause, or both. One builtin family, documented as Exception.
	for _, c := range []*javaClass{classThrowable, classException, classJavaError, classAssertionError, classRuntime,
		classIllegalArgument, classIllegalState, classArithmetic, classNumberFormat, classClassCast,
		classNullPointer, classIndexOutOfBound, classUnsupported} {
		b := t.add(c.name+".", 0, 2, construct(c), c.simpleName()+".")
		b.Name = "Exception." // the family's name, and its doc entry
	}
	t.alias("ex-info", "clojure.lang.ExceptionInfo.", "ExceptionInfo.")
	// The Java methods models call on a caught exception.
	method := func(name string, get func(x *Exception) Value, aliases ...string) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			if x, ok := a[0].(*Exception); ok {
				return get(x), nil
			}
			return nil, argError(name, 0, "an exception", a[0])
		}, aliases...)
	}
	method(".getMessage", func(x *Exception) Value { return x.message }, ".getLocalizedMessage")
	method(".getData", func(x *Exception) Value {
		if x.data == nil {
			return nil
		}
		return x.data
	})
	method(".getCause", func(x *Exception) Value {
		if x.cause == nil {
			return nil
		}
		return x.cause
	})
	// A program has no stack trace to show (deviation row 99): the trace
	// is empty, and printStackTrace prints the exception's first line, to
	// the output a model reads (Java: to stderr).
	method(".getStackTrace", func(x *Exception) Value { return emptyVector })
	t.add(".printStackTrace", 1, 1, func(th *thread, a []Value) (Value, error) {
		x, ok := a[0].(*Exception)
		if !ok {
			return nil, argError(".printStackTrace", 0, "an exception", a[0])
		}
		s, err := th.render(x, false)
		if err != nil {
			return nil, err
		}
		return nil, th.printLine(s, true)
	})
}

// construct is the constructor of class c: (C.), (C. message),
// (C. cause) and (C. message cause), as Java's.
func construct(c *javaClass) builtinFn {
	return func(th *thread, a []Value) (Value, error) {
		name := c.simpleName() + "."
		x := &Exception{class: c}
		switch {
		case len(a) == 2:
			x.message = a[0]
			cause, ok := a[1].(*Exception)
			if !ok && a[1] != nil {
				return nil, argError(name, 1, "an exception (the cause)", a[1])
			}
			x.cause = cause
		case len(a) == 1:
			if cause, ok := a[0].(*Exception); ok {
				// Java: the cause's toString is the message.
				x.message, x.cause = displayString(cause), cause
			} else {
				x.message = a[0]
			}
		}
		if _, ok := x.message.(string); !ok && x.message != nil {
			return nil, argError(name, 0, "a message string", x.message)
		}
		if err := th.charge(4); err != nil {
			return nil, err
		}
		return x, nil
	}
}

// exceptionText is Java's toString of an exception, what str gives:
// "java.lang.ArithmeticException: Divide by zero", and for an ExceptionInfo
// its data after the message: "clojure.lang.ExceptionInfo: bad {:id 1}".
func (p *printer) exceptionText(x *Exception, depth int) {
	p.sb.WriteString(x.class.name)
	msg, hasMsg := x.message.(string)
	switch {
	case x.class == classExceptionInfo && x.data != nil:
		p.sb.WriteString(": ")
		if hasMsg {
			p.sb.WriteString(p.opts.Redact.text(msg))
		} else {
			p.sb.WriteString("null")
		}
		p.sb.WriteByte(' ')
		raw := p.raw
		p.raw = false
		p.value(x.data, depth+1)
		p.raw = raw
	case hasMsg:
		p.sb.WriteString(": ")
		p.sb.WriteString(p.opts.Redact.text(msg))
	}
}

// exception prints x as Clojure prints a Throwable, without its stack
// trace: #error {:cause "bad", :data {:id 1}, :via [{:type
// clojure.lang.ExceptionInfo, :message "bad", :data {:id 1}}]}. :cause and
// :data are the root cause's, :via lists the chain from x down.
func (p *printer) exception(x *Exception, depth int) {
	if p.tooDeep(depth, "#error {...}") {
		return
	}
	root := x
	for root.cause != nil {
		root = root.cause
	}
	p.sb.WriteString("#error {:cause ")
	p.value(root.message, depth+1)
	if root.data != nil {
		p.sb.WriteString(", :data ")
		p.value(root.data, depth+1)
	}
	p.sb.WriteString(", :via [")
	for i, e := 0, x; e != nil; i, e = i+1, e.cause {
		if p.cut(i, i, " ") || p.overflow {
			break
		}
		if i > 0 {
			p.sb.WriteByte(' ')
		}
		p.sb.WriteString("{:type ")
		p.sb.WriteString(e.class.name)
		p.sb.WriteString(", :message ")
		p.value(e.message, depth+2)
		if e.data != nil {
			p.sb.WriteString(", :data ")
			p.value(e.data, depth+2)
		}
		p.sb.WriteByte('}')
	}
	p.sb.WriteString("]}")
}

// readException rebuilds an exception from the map its printed form holds
// (see printer.exception and Read): the chain of :via, outermost first.
func readException(m *Map) (*Exception, bool) {
	via, ok := m.Get(Keyword("via"))
	v, isVec := via.(*Vector)
	if !ok || !isVec || v.Len() == 0 {
		return nil, false
	}
	var x *Exception
	for i := v.Len() - 1; i >= 0; i-- {
		level, ok := v.At(i).(*Map)
		if !ok {
			return nil, false
		}
		typ, _ := level.Get(Keyword("type"))
		name, _ := typ.(string)
		class := lookupClass(name)
		if class == nil {
			class = classRuntime
		}
		msg, _ := level.Get(Keyword("message"))
		if _, ok := msg.(string); !ok && msg != nil {
			return nil, false
		}
		e := &Exception{class: class, message: msg, cause: x}
		if d, ok := level.Get(Keyword("data")); ok {
			if dm, ok := d.(*Map); ok {
				e.data = dm
			}
		}
		x = e
	}
	return x, true
}

// catchClause is a compiled catch clause.
type catchClause struct {
	class *javaClass
	slot  int
	body  evalFn
}

// tryExpr compiles (try ...). The body runs; an error it fails with that a
// clause's class catches runs that clause, with the exception bound; the
// finally runs after either, its value discarded, and an error of its own
// replaces the outcome (Java's rules). Errors no try catches (limits,
// cancellation, return, fail) skip the finally too: they end the program
// at once, and a finally must not delay a limit.
func (c *compiler) tryExpr(e *analyze.Try) evalFn {
	body := c.expr(e.Body)
	clauses := make([]catchClause, len(e.Catches))
	for i, cl := range e.Catches {
		class := lookupClass(cl.Class)
		if class == nil && isJavaThrowableName(cl.Class) {
			// A real Java class the runtime never throws (IOException,
			// InterruptedException): the clause compiles, as in Clojure,
			// and catches nothing.
			parent := classException
			if strings.HasSuffix(cl.Class, "Error") {
				parent = classJavaError
			}
			class = newClass(cl.Class, parent)
		}
		if class == nil {
			return c.errorf(c.pos(cl.Off), InvalidForm,
				"catch names the unknown class %s: catch Exception (or Throwable) for any error, ExceptionInfo for an ex-info; the known classes are %s",
				cl.Class, knownClassNames())
		}
		clauses[i] = catchClause{class: class, slot: cl.Slot, body: c.expr(cl.Body)}
	}
	var fin evalFn
	if e.Finally != nil {
		fin = c.expr(e.Finally)
	}
	return func(fr *frame) (Value, error) {
		th := fr.th
		mark := th.stack.mark()
		v, err := body(fr)
		if err == nil && fin == nil {
			return v, nil
		}
		if err != nil && len(clauses) > 0 {
			x, cerr := th.caughtException(err)
			if cerr != nil {
				return nil, cerr
			}
			if x != nil {
				for _, cl := range clauses {
					if !x.class.isa(cl.class) {
						continue
					}
					// The failed body may have left values on the stack.
					th.stack.reset(mark)
					if err := th.tick(); err != nil {
						return nil, err
					}
					fr.slots[cl.slot] = x
					v, err = cl.body(fr)
					break
				}
			}
		}
		if fin != nil {
			if _, ok := catchableError(err); err != nil && !ok {
				return nil, err
			}
			if _, ferr := fin(fr); ferr != nil {
				return nil, ferr
			}
		}
		return v, err
	}
}

// asMap is x as data, for ToGo and ToJSON: {:type :message :data :cause},
// the keys it has.
func (x *Exception) asMap() *Map {
	b := NewMapBuilder(nil)
	b.Set(Keyword("type"), x.class.name)
	b.Set(Keyword("message"), x.message)
	if x.data != nil {
		b.Set(Keyword("data"), x.data)
	}
	if x.cause != nil {
		b.Set(Keyword("cause"), x.cause)
	}
	return b.Map()
}

// javaLangThrowables are the simple names of java.lang's exceptions and
// errors, which Clojure resolves without an import.
var javaLangThrowables = map[string]bool{
	"ClassNotFoundException": true, "CloneNotSupportedException": true, "EnumConstantNotPresentException": true,
	"IllegalAccessException": true, "IllegalCallerException": true, "IllegalMonitorStateException": true,
	"IllegalThreadStateException": true, "InstantiationException": true, "InterruptedException": true,
	"NoSuchFieldException": true, "NoSuchMethodException": true, "ReflectiveOperationException": true,
	"SecurityException": true, "TypeNotPresentException": true, "AbstractMethodError": true,
	"BootstrapMethodError": true, "ClassFormatError": true, "ExceptionInInitializerError": true,
	"IllegalAccessError": true, "IncompatibleClassChangeError": true, "InternalError": true, "LinkageError": true,
	"NoClassDefFoundError": true, "NoSuchFieldError": true, "NoSuchMethodError": true, "UnknownError": true,
}

// isJavaThrowableName reports a name Clojure resolves to a Java exception
// or error class: one of java.lang's, or a qualified name in java., javax.
// or clojure. ending with Exception or Error.
func isJavaThrowableName(name string) bool {
	if javaLangThrowables[name] || javaLangThrowables[strings.TrimPrefix(name, "java.lang.")] {
		return true
	}
	last := name[strings.LastIndexByte(name, '.')+1:]
	qualified := strings.HasPrefix(name, "java.") || strings.HasPrefix(name, "javax.") || strings.HasPrefix(name, "clojure.")
	return qualified && last != "" && (strings.HasSuffix(last, "Exception") || strings.HasSuffix(last, "Error"))
}
