// Package syntax is the PTC-Lisp reader: it turns source text into forms
// (Nodes) that carry their source positions. It knows nothing of what forms
// mean; the analyzer decides that.
//
// The reader accepts a superset of the reference PTC-Lisp reader, close to
// Clojure, so that programs written by LLMs read as intended or fail with a
// message that says how to fix them. It never panics, never hangs, and its
// recursion is bounded by Config.MaxDepth, whatever the input.
//
// # Lexical syntax
//
//	white space   space, tab, CR, LF, comma, other Unicode white space
//	comment       ; to end of line; a first line starting with #!
//	#_ form       discards the form
//	) ] }         between top-level forms: skipped (a common extra ')')
//	nil true false
//	integer       [+-]digits[N], [+-]0x|0X hexdigits[N], [+-]radix r|R digits
//	              (2r1010, 16rFF); 64-bit; 007 is 7
//	float         [+-]digits.[digits][e[+-]digits][M], [+-]digits e[+-]digits[M],
//	              [+-]digitsM, ##Inf, ##-Inf, ##NaN; a ratio [+-]digits/digits
//	              is the float / gives (1/2 is 0.5)
//	string        "..." (may span lines, keeping the line breaks); escapes
//	              \\ \" \n \t \r \b \f \uXXXX
//	character     \c, \newline \space \tab \return \backspace \formfeed,
//	              \uXXXX, \oNNN (octal, at most 377); c may be a delimiter
//	              (\( \" \;) or one grapheme (\é)
//	keyword       :name (name may contain / and .)
//	symbol        any other token; ns/name splits at the first '/'
//	(...) [...] {...} #{...} #(...)   list, vector, map, set, short fn
//	'form  @form  #'sym  #"regex"     quote, deref, var, regex (kept verbatim)
//	`form  ~form  ~@form              syntax-quote, unquote, unquote-splicing
//	                                  (for macros; the analyzer expands them)
//	#inst "2024-01-02T03:04:05Z"     an instant: a four-digit year, then
//	              optionally -MM, -dd, Thh, :mm, :ss, .fraction, and Z or
//	              ±hh:mm (ParseInst); #uuid "…", a UUID (CanonicalUUID)
//	^meta form    metadata (symbol, keyword, string or map) on a symbol or
//	              collection: checked, then dropped
//
// A token is a maximal run of characters other than white space and
// ( ) [ ] { } " ; ` ~ ^ @. Rejected, with a message saying what to write
// instead: .5, auto-resolved keywords with an alias (::str/k; ::k is
// :user/k, the keyword of the namespace programs run in), other tagged
// literals and # forms;
// control characters (C0 other than tab, CR, LF; DEL; C1) outside strings
// and comments, and invalid UTF-8 outside comments.
//
// # Errors
//
// Read reports every error it finds (up to Config.MaxErrors) as an
// ErrorList of *Error, each with a line:column position and, for unclosed
// or mismatched delimiters, the position of the opener. Recovery is chosen
// so that one mistake gives one error: an invalid token is skipped, a
// mismatched closer closes the innermost open collection, and each
// collection still open at the end of input gets one "unclosed" error,
// innermost first, unless a string or regex literal ran to the end of input:
// then that literal is the one error, reported where it opened, or where
// the first literal whose lines look like code opened (the likely place of
// the missing quote). Nesting deeper than Config.MaxDepth stops reading with a
// single error. Read also returns the forms it could read. Snippet renders
// a position as the source line with a caret under the column, for feeding
// errors back to an LLM.
package syntax
