// Package template implements prompt templates: text with {{placeholders}}
// that are filled in from a context of Go or PTC-Lisp values.
//
//	t := template.MustParse("Find urgent emails for {{user.name}} about {{topic}}")
//	out, err := t.Execute(map[string]any{"user": map[string]any{"name": "Alice"}, "topic": "billing"})
//	// Find urgent emails for Alice about billing
//
// A template is parsed once, which checks its syntax and lists its
// placeholders (Template.Placeholders), the Go counterpart of PtcRunner's
// ~PROMPT sigil (the design documents, docs/deviations.md); use MustParse for templates written in the program.
// Template.Validate checks the placeholders against a signature's input
// parameters when an agent is defined, so that a typo fails early with
// PtcRunner's message:
//
//	placeholder {{user}} not found in signature
//
// # Syntax
//
//	{{name}}                 the value of name
//	{{user.name}}            nested access: the field name of user
//	{{#items}}…{{/items}}    a section: the text once per element of items
//	{{.}}                    the current element, inside a section
//	{{^items}}…{{/items}}    an inverted section: the text when items is
//	                         missing, nil, false, "" or empty
//	{{! a comment }}         nothing
//
// Names start with a letter or an underscore and contain letters, digits,
// underscores and hyphens, as in signatures. Blanks inside the braces are
// ignored: {{ user.name }} is {{user.name}}.
//
// A section iterates over a vector or a set. Inside it, {{.}} is the
// element and a name is looked up in the element first (when it is a map)
// and then in the enclosing sections and the data, so
//
//	{{#items}}- {{name}}: {{price}} {{currency}}
//	{{/items}}
//
// can read currency from the top level. A section over a value that is
// missing, nil, false, "" or an empty collection renders nothing; over any
// other value that is not a collection (a map, a string, a number, true)
// it renders once, with that value as the current element.
//
// # Values
//
// Strings are inserted as they are, keywords by name (:active gives
// active), nil as nothing, numbers and booleans in their printed form with
// floats rounded to the precision set by WithFloatPrecision, and
// collections in the compact printed form ({:id 1, :tags ["a" "b"]}),
// bounded by WithPrintOptions. WithMaxBytes bounds the whole expansion,
// for data that is not trusted (an LLM-built value can print to more than
// any memory holds). Nothing is HTML-escaped: templates are prompts, not
// web pages.
//
// A simple placeholder whose value is missing is an error naming it
// (*MissingError); a key that is present with the value nil renders as
// nothing. For optional values, use a section:
// {{#note}}Note: {{note}}{{/note}}.
//
// # Whitespace
//
// Text is copied as it is, with one exception that keeps block templates
// tidy: a section, inverted section, closing or comment tag that stands
// alone on its line (with only blanks around it) removes that whole line,
// including its line break. So
//
//	Items:
//	{{#items}}
//	- {{.}}
//	{{/items}}
//	Done.
//
// renders as "Items:\n- a\n- b\nDone.\n", without blank lines. Simple
// placeholders never remove whitespace.
//
// # Escaping
//
// To write a literal {{, put a backslash before it: \{{name}} renders as
// {{name}}. Backslashes matter only directly before {{: there, each pair
// stands for one backslash and an odd one out makes the {{ literal, so
// \\{{name}} renders a backslash followed by the value of name. A
// backslash anywhere else, and a }} outside a tag, are ordinary text.
//
// # Errors
//
// Parse errors are *Error values with a position:
//
//	unclosed section {{#items}} opened at 1:10 (close it with {{/items}})
//	invalid placeholder {{123}} at 1:7 (...)
//	unclosed tag {{ at 2:5 (expected }} on the same line; ...)
package template
