package handlers

// ViewerRule returns the rule route ("METHOD /path") declares for viewers: before_sign_in,
// own_account, reads or denied; false when it declares none.
func ViewerRule(route string) (string, bool) {
	r, ok := viewerRules[route]
	return [...]string{"", "before_sign_in", "own_account", "reads", "denied"}[r], ok
}
