package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// pinPrefix starts a catalog pin: "sha256:" and 64 hex digits.
const pinPrefix = "sha256:"

// catalogPin is the pin of the tools a Toolset keeps of a server: the
// SHA-256 of their names, titles, descriptions and schemas, as the server
// sent them, in a canonical JSON form (tools by name, object keys sorted).
// A server that changes any of them after the user read them (a "rug
// pull") changes the pin.
func catalogPin(tools []*mcpsdk.Tool) string {
	type pinned struct {
		Name         string `json:"name"`
		Title        string `json:"title,omitempty"`
		Description  string `json:"description,omitempty"`
		InputSchema  any    `json:"inputSchema,omitempty"`
		OutputSchema any    `json:"outputSchema,omitempty"`
	}
	list := make([]pinned, len(tools))
	for i, t := range tools {
		list[i] = pinned{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	data, err := json.Marshal(list)
	if err != nil { // schemas are decoded JSON: cannot happen
		data = []byte(err.Error())
	}
	sum := sha256.Sum256(data)
	return pinPrefix + hex.EncodeToString(sum[:])
}

// validPin checks the form of a pin.
func validPin(p string) bool {
	h, ok := strings.CutPrefix(p, pinPrefix)
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
