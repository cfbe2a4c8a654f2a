package bundled

// joinCustomer is a row of the customer tool.
type joinCustomer struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Tier    string `json:"tier"`
	Country string `json:"country"`
}

// joinCustomers returns the 20 customers orders() refers to, by id.
func joinCustomers() map[string]joinCustomer {
	s := lcg(7)
	tiers := []string{"gold", "silver", "silver", "bronze"}
	countries := []string{"SE", "DE", "FR", "US", "JP"}
	names := []string{"Ada", "Bo", "Cyd", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"}
	out := map[string]joinCustomer{}
	for i := 1; i <= 20; i++ {
		id := "C" + pad(i, 3)
		out[id] = joinCustomer{ID: id, Name: pick(&s, names) + " " + string(rune('A'+i-1)) + ".",
			Tier: pick(&s, tiers), Country: pick(&s, countries)}
	}
	return out
}
