// Package typedtool makes a tool from a typed Go function,
// func(context.Context, In) (Out, error): its signature comes from the Go
// types (signature.TypeOf), and a call's arguments are coerced and checked
// against it, then decoded into In. It is the machinery of agent.NewTool,
// kept out of the public API so that it can change with it.
package typedtool
