package replcmd

import (
	"io"
	"os"

	"golang.org/x/term"
)

// replTerminal is the REPL's terminal while the line editor runs.
type replTerminal struct {
	in, out *os.File
	state   *term.State
}

// openReplTerminal returns the terminal when both stdin and stdout are one
// that understands escape sequences, else nil.
func openReplTerminal(stdin io.Reader, stdout io.Writer) *replTerminal {
	in, ok1 := stdin.(*os.File)
	out, ok2 := stdout.(*os.File)
	if !ok1 || !ok2 || os.Getenv("TERM") == "dumb" {
		return nil
	}
	if !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return nil
	}
	return &replTerminal{in: in, out: out}
}

// makeRaw puts the terminal in raw mode: keys arrive one by one, unechoed,
// Ctrl-C included.
func (t *replTerminal) makeRaw() error {
	st, err := term.MakeRaw(int(t.in.Fd()))
	if err != nil {
		return err
	}
	t.state = st
	return nil
}

// restore returns the terminal to the mode it had.
func (t *replTerminal) restore() {
	if t.state != nil {
		_ = term.Restore(int(t.in.Fd()), t.state)
	}
}

// width returns the terminal's columns, 80 when unknown.
func (t *replTerminal) width() int {
	w, _, err := term.GetSize(int(t.out.Fd()))
	if err != nil || w <= 0 {
		return 80
	}
	return w
}
