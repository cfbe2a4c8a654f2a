package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/lisp"
)

// outputMismatch is the error of a structured result that contradicts
// the tool's outputSchema.
type outputMismatch struct{ err error }

func (e *outputMismatch) Error() string { return e.err.Error() }

// resultValue converts a successful CallToolResult into the value a
// program gets (see the package documentation, "Results"), with the
// firewall pointers applied to JSON data. check, when not nil, checks the
// structuredContent (as decoded JSON, before the firewall renames its
// fields) against the tool's outputSchema; its error is an
// *outputMismatch.
func resultValue(res *mcpsdk.CallToolResult, firewall [][]string, check func(any) error) (lisp.Value, error) {
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, err
		}
		v, err := decodeJSON(data)
		if err != nil {
			return nil, err
		}
		if check != nil {
			if err := check(v); err != nil {
				return nil, &outputMismatch{err}
			}
		}
		return firewallValue(v, firewall)
	}
	var texts []string
	allText := true
	for _, c := range res.Content {
		t, ok := c.(*mcpsdk.TextContent)
		if !ok {
			allText = false
			break
		}
		texts = append(texts, t.Text)
	}
	switch {
	case len(res.Content) == 0:
		return nil, nil
	case allText && len(texts) == 1:
		if v, ok := resultTextJSON(texts[0], firewall); ok {
			return v, nil
		}
		return texts[0], nil
	case allText:
		// Several texts: one JSON value each (a record per item, as some
		// servers send), else the texts joined.
		items := make([]lisp.Value, 0, len(texts))
		for _, t := range texts {
			v, ok := resultTextJSON(t, firewall)
			if !ok {
				return strings.Join(texts, "\n"), nil
			}
			items = append(items, v)
		}
		return lisp.NewVector(items), nil
	}
	items := make([]lisp.Value, 0, len(res.Content))
	for _, c := range res.Content {
		items = append(items, resultContent(c))
	}
	if len(items) == 1 {
		return items[0], nil
	}
	return lisp.NewVector(items), nil
}

// resultTextJSON parses a text that holds JSON.
func resultTextJSON(text string, firewall [][]string) (lisp.Value, bool) {
	t := strings.TrimSpace(text)
	if t == "" || !json.Valid([]byte(t)) {
		return nil, false
	}
	v, err := resultJSON([]byte(t), firewall)
	if err != nil {
		return nil, false
	}
	return v, true
}

// resultJSON decodes JSON data (integers as integers), renames the
// firewalled fields and converts the value for programs.
func resultJSON(data []byte, firewall [][]string) (lisp.Value, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	return firewallValue(v, firewall)
}

// decodeJSON decodes one JSON value, numbers as json.Number.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("extra data after the JSON value")
	}
	return v, nil
}

// firewallValue renames the firewalled fields of decoded JSON and
// converts it for programs.
func firewallValue(v any, firewall [][]string) (lisp.Value, error) {
	for _, p := range firewall {
		applyFirewall(v, p)
	}
	return lisp.FromGo(v)
}

// resultContent describes one content item: texts as {:type "text" :text
// ...}; images and audio by their MIME type and size, never their bytes;
// resources by their URI (and their text, for a text resource).
func resultContent(c mcpsdk.Content) lisp.Value {
	m := map[string]any{}
	switch x := c.(type) {
	case *mcpsdk.TextContent:
		m["type"], m["text"] = "text", x.Text
	case *mcpsdk.ImageContent:
		m["type"], m["mime_type"], m["bytes"] = "image", x.MIMEType, len(x.Data)
	case *mcpsdk.AudioContent:
		m["type"], m["mime_type"], m["bytes"] = "audio", x.MIMEType, len(x.Data)
	case *mcpsdk.ResourceLink:
		m["type"], m["uri"], m["name"] = "resource_link", x.URI, x.Name
		resultSet(m, "title", x.Title)
		resultSet(m, "description", x.Description)
		resultSet(m, "mime_type", x.MIMEType)
		if x.Size != nil {
			m["size"] = *x.Size
		}
	case *mcpsdk.EmbeddedResource:
		m["type"] = "resource"
		if r := x.Resource; r != nil {
			m["uri"] = r.URI
			resultSet(m, "mime_type", r.MIMEType)
			if r.Blob != nil {
				m["bytes"] = len(r.Blob)
			} else {
				m["text"] = r.Text
			}
		}
	default:
		m["type"] = "unknown"
		if data, err := json.Marshal(c); err == nil {
			var w struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(data, &w) == nil && w.Type != "" {
				m["type"] = w.Type
			}
		}
	}
	v, err := lisp.FromGo(m)
	if err != nil {
		return nil
	}
	return v
}

func resultSet(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

// resultErrorText is the text of an isError result: its text contents joined.
func resultErrorText(res *mcpsdk.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcpsdk.TextContent); ok && strings.TrimSpace(t.Text) != "" {
			texts = append(texts, strings.TrimSpace(t.Text))
		}
	}
	if len(texts) == 0 {
		if res.StructuredContent != nil {
			if data, err := json.Marshal(res.StructuredContent); err == nil {
				return string(data)
			}
		}
		return "the tool reported an error without a message"
	}
	return strings.Join(texts, "\n")
}
