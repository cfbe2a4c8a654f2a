package template_test

import (
	"fmt"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
	"github.com/ptc-go/ptc/template"
)

// Parsing lists the placeholders, like the seeds' ~PROMPT sigil.
func ExampleParse() {
	t := template.MustParse("Hello {{name}}, you have {{count}} items{{#urgent}}, {{subject}} is urgent{{/urgent}}")
	for _, p := range t.Placeholders() {
		fmt.Println(p.Path, p.Kind, p.Scope)
	}

	_, err := template.Parse("Items: {{#items}}{{name}}")
	fmt.Println(err)
	// Output:
	// [name] simple []
	// [count] simple []
	// [urgent] section []
	// [subject] simple [urgent]
	// unclosed section {{#items}} opened at 1:8 (close it with {{/items}})
}

func ExampleTemplate_Execute() {
	t := template.MustParse(`Find emails for {{user.name}} about {{topic}}.
{{#filters}}
- {{field}} must be {{value}}
{{/filters}}
{{^filters}}
No filters.
{{/filters}}
Minimum score: {{min_score}}, tags: {{tags}}`)
	out, err := t.Execute(map[string]any{
		"user":      map[string]any{"name": "Alice"},
		"topic":     lisp.Keyword("billing"),
		"filters":   []map[string]any{{"field": "from", "value": "bob@example.com"}, {"field": "unread", "value": true}},
		"min_score": 0.756,
		"tags":      []string{"a", "b"},
	}, template.WithFloatPrecision(2))
	fmt.Println(out, err)

	_, err = t.Execute(map[string]any{"topic": "x"})
	fmt.Println(err)
	// Output:
	// Find emails for Alice about billing.
	// - from must be bob@example.com
	// - unread must be true
	// Minimum score: 0.76, tags: ["a" "b"] <nil>
	// missing values for placeholders {{user.name}} at 1:17, {{min_score}} at 8:16, {{tags}} at 8:37
}

// Validation against a signature happens when an agent is defined.
func ExampleTemplate_Validate() {
	sig, _ := signature.Parse("(person :string, emails [{subject :string}]) -> {count :int}")
	t := template.MustParse("Find emails for {{user}}: {{#emails}}{{subject}}, {{/emails}}")
	fmt.Println(t.Validate(sig))
	fmt.Println(template.MustParse("Emails of {{person}}: {{#emails}}{{subject}} {{/emails}}").Validate(sig))
	// Output:
	// placeholder {{user}} not found in signature
	// <nil>
}

func ExampleEscape() {
	src := "Answer with " + template.Escape(`{"name": {{name}}}`) + " for {{name}}."
	fmt.Println(src)
	out, _ := template.MustParse(src).Execute(map[string]any{"name": "Ann"})
	fmt.Println(out)
	// Output:
	// Answer with {"name": \{{name}}} for {{name}}.
	// Answer with {"name": {{name}}} for Ann.
}
