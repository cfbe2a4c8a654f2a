package bundled

import (
	"context"
	"encoding/json"
	"errors"
	"sort"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/mcp"
)

func init() { builders = append(builders, mcpStockTask) }

// product is a row of the MCP server's catalog.
type product struct {
	SKU      string `json:"sku"`
	Name     string `json:"name"`
	Category string `json:"category"`
}

// stockLevel is a product's quantity in one warehouse.
type stockLevel struct {
	Warehouse string `json:"warehouse"`
	Qty       int    `json:"qty"`
}

// mcpStockData makes the catalog and the stock levels by SKU.
func mcpStockData() ([]product, map[string][]stockLevel) {
	s := lcg(7)
	cats := []string{"tools", "garden", "kitchen"}
	names := []string{"hammer", "rake", "kettle", "ladder", "hose", "whisk", "drill", "shears", "pan"}
	var ps []product
	stock := map[string][]stockLevel{}
	for i := range 30 {
		sku := "SKU-" + pad(200+i*11, 4)
		ps = append(ps, product{SKU: sku, Name: pick(&s, names), Category: pick(&s, cats)})
		for _, w := range []string{"berlin", "lyon", "turin"} {
			if s.intn(4) > 0 { // not every warehouse holds every product
				stock[sku] = append(stock[sku], stockLevel{Warehouse: w, Qty: s.intn(40)})
			}
		}
	}
	return ps, stock
}

// mcpStockServer is an in-process MCP server with the catalog's two tools.
func mcpStockServer(ps []product, stock map[string][]stockLevel) *mcpsdk.Server {
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "shop", Version: "v1.0.0"}, nil)
	args := func(req *mcpsdk.CallToolRequest) map[string]any {
		var m map[string]any
		if req.Params != nil && len(req.Params.Arguments) > 0 {
			_ = json.Unmarshal(req.Params.Arguments, &m)
		}
		return m
	}
	srv.AddTool(&mcpsdk.Tool{
		Name:         "list_products",
		Description:  "Lists the products of a category.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"category":{"type":"string"}},"required":["category"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"products":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"name":{"type":"string"},"category":{"type":"string"}},"required":["sku","name","category"]}}},"required":["products"]}`),
	}, func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		cat, _ := args(req)["category"].(string)
		out := []product{}
		for _, p := range ps {
			if p.Category == cat {
				out = append(out, p)
			}
		}
		b, _ := json.Marshal(map[string]any{"products": out})
		return &mcpsdk.CallToolResult{StructuredContent: map[string]any{"products": out}, Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: string(b)}}}, nil
	})
	srv.AddTool(&mcpsdk.Tool{
		Name:         "stock",
		Description:  "Gives a product's quantity in each warehouse that holds it.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"},"levels":{"type":"array","items":{"type":"object","properties":{"warehouse":{"type":"string"},"qty":{"type":"integer"}},"required":["warehouse","qty"]}}},"required":["sku","levels"]}`),
	}, func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		sku, _ := args(req)["sku"].(string)
		levels, ok := stock[sku]
		if !ok {
			levels = []stockLevel{}
		}
		res := map[string]any{"sku": sku, "levels": levels}
		b, _ := json.Marshal(res)
		return &mcpsdk.CallToolResult{StructuredContent: res, Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: string(b)}}}, nil
	})
	return srv
}

// mcpStockTask: an MCP server's tools, in process: list a category, then
// the stock of each product, and keep those running low.
func mcpStockTask(ctx context.Context) (Task, func() error, error) {
	ps, stock := mcpStockData()
	serverT, clientT := mcpsdk.NewInMemoryTransports()
	ss, err := mcpStockServer(ps, stock).Connect(ctx, serverT, nil)
	if err != nil {
		return Task{}, nil, err
	}
	ts, err := mcp.Connect(ctx, mcp.Server{Name: "shop", Transport: clientT})
	if err != nil {
		_ = ss.Close()
		return Task{}, nil, err
	}
	closeFn := func() error { return errors.Join(ts.Close(), ss.Close()) }
	expect := func(category string, below int) []map[string]any {
		out := []map[string]any{}
		for _, p := range ps {
			if p.Category != category {
				continue
			}
			total := 0
			for _, l := range stock[p.SKU] {
				total += l.Qty
			}
			if total < below {
				out = append(out, map[string]any{"sku": p.SKU, "total": total})
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i]["sku"].(string) < out[j]["sku"].(string) })
		return out
	}
	const prompt = "Find the products of category {{category}} whose quantity summed over all warehouses is below {{below}}, with the shop server's tools. Return each one's sku and total, sorted by sku."
	t := Task{
		Task: eval.Task{
			Name:        "mcp-low-stock",
			Description: "an MCP server's tools (in process): list, then one call per item (pmap), sum nested levels, filter",
			Tags:        []string{"mcp", "pmap", "aggregation"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(category :string, below :int) -> [{sku :string, total :int}]",
				Tools:     ts.Tools(0),
			},
			Cases: []eval.Case{
				{Name: "tools-below-40", Input: map[string]any{"category": "tools", "below": 40}, Checks: []eval.Check{eval.Equals(expect("tools", 40))}},
				{Name: "garden-below-30", Input: map[string]any{"category": "garden", "below": 30}, Checks: []eval.Check{eval.Equals(expect("garden", 30))}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Find the products of category ") {
				return "", false
			}
			return program(`
(let [ps (:products (tool/shop.list_products {:category ctx/category}))
      totals (pmap (fn [p] {:sku (:sku p) :total (sum-by :qty (:levels (tool/shop.stock {:sku (:sku p)})))}) ps)]
  (return (sort-by :sku (filter #(< (:total %) ctx/below) totals))))`), true
		},
		Decoys: []string{
			// the first warehouse's quantity only
			`(return (sort-by :sku (filter #(< (:total %) ctx/below) (map (fn [p] {:sku (:sku p) :total (or (:qty (first (:levels (tool/shop.stock {:sku (:sku p)})))) 0)}) (:products (tool/shop.list_products {:category ctx/category}))))))`,
			// low in some warehouse instead of low in total
			`(return (vec (for [p (:products (tool/shop.list_products {:category ctx/category})) :let [ls (:levels (tool/shop.stock {:sku (:sku p)}))] :when (some #(< (:qty %) ctx/below) ls)] {:sku (:sku p) :total (sum-by :qty ls)})))`,
		},
	}
	return t, closeFn, nil
}
