package replcmd

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The line editor of the REPL. It reads key presses from a replInput and
// draws on any io.Writer with a few ANSI sequences, so tests drive it with
// scripted bytes. The buffer holds a whole form, newlines included: Enter
// submits it once its brackets balance and otherwise opens a continuation
// line, and history recalls a multi-line form whole.

var (
	// errReplInterrupt: Ctrl-C cleared the input.
	errReplInterrupt = errors.New("interrupt")
	// errReplDiscard: Ctrl-D discarded an unfinished input.
	errReplDiscard = errors.New("discarded")
)

// replEscWait is how long a lone Esc waits for the rest of an escape sequence.
const replEscWait = 50 * time.Millisecond

type edKeyKind int

const (
	ekNone edKeyKind = iota
	ekRune
	ekEnter
	ekNewline // Alt-Enter: a new line even in a complete form
	ekBackspace
	ekDelete
	ekLeft
	ekRight
	ekUp
	ekDown
	ekHome
	ekEnd
	ekWordLeft
	ekWordRight
	ekKillLineStart // Ctrl-U
	ekKillLineEnd   // Ctrl-K
	ekKillWordBack  // Ctrl-W, Alt-Backspace
	ekKillWordFwd   // Alt-D
	ekYank          // Ctrl-Y
	ekTranspose     // Ctrl-T
	ekInterrupt     // Ctrl-C
	ekEOF           // Ctrl-D
	ekCancel        // Ctrl-G, Esc
	ekClear         // Ctrl-L
	ekHistPrev      // Ctrl-P
	ekHistNext      // Ctrl-N
	ekSearch        // Ctrl-R
	ekTab
	ekPasteStart
	ekPasteEnd
)

type edKey struct {
	kind edKeyKind
	r    rune
}

// replCtrlKeys maps the control bytes the editor handles.
var replCtrlKeys = [32]edKeyKind{
	0x01: ekHome, 0x02: ekLeft, 0x03: ekInterrupt, 0x04: ekEOF,
	0x05: ekEnd, 0x06: ekRight, 0x07: ekCancel, 0x08: ekBackspace,
	0x09: ekTab, 0x0a: ekEnter, 0x0b: ekKillLineEnd, 0x0c: ekClear,
	0x0d: ekEnter, 0x0e: ekHistNext, 0x10: ekHistPrev, 0x12: ekSearch,
	0x14: ekTranspose, 0x15: ekKillLineStart, 0x17: ekKillWordBack,
	0x19: ekYank,
}

// lineEditor edits one input at a time; it keeps the kill buffer and the
// history between inputs.
type lineEditor struct {
	in         *replInput
	out        io.Writer
	width      func() int // columns of the terminal
	hist       *History
	prompt     string // first line; its width is also the continuation's
	contPrompt string
	color      bool // style the prompt and show the matching bracket

	// submit reports whether Enter submits src (else it opens a new line).
	submit func(src string) bool
	// completions returns the candidates for the word ending at pos, and
	// where that word starts.
	completions func(buf []rune, pos int) (start int, cands []string)

	buf []rune
	pos int
	row int // screen rows from the top of the input to the cursor
	// wrapped: the last line fills its last row, so the end of the input
	// is at the start of the row below.
	wrapped bool
	kill    []rune
	hidx    int    // position in history; len(entries) is the new input
	draft   []rune // the new input, while history is shown
	search  *replSearch
	paste   bool // inside a bracketed paste
	lastCR  bool // the previous pasted byte was a CR
}

// replSearch is an incremental reverse search of the history (Ctrl-R).
type replSearch struct {
	query   []rune
	idx     int // the entry shown; -1 when nothing matches
	saveBuf []rune
	savePos int
}

// readForm reads one input: a complete form (or a command) when Enter
// submits it, errReplInterrupt after Ctrl-C, errReplDiscard after Ctrl-D on an
// unfinished form, io.EOF after Ctrl-D on an empty one or at the end of
// the input.
func (e *lineEditor) readForm() (string, error) {
	if e.hist == nil {
		e.hist = &History{max: HistoryLimit}
	}
	e.buf, e.pos, e.row = nil, 0, 0
	e.hidx, e.draft, e.search, e.paste = len(e.hist.Entries), nil, nil, false
	e.refresh()
	for {
		k, err := e.readKey()
		if err != nil {
			e.finish("")
			return "", err
		}
		if e.paste {
			e.pasteKey(k)
			continue
		}
		if e.search != nil && !e.searchKey(k) {
			e.refreshLater()
			continue
		}
		switch k.kind {
		case ekRune:
			e.insert(k.r)
		case ekEnter:
			src := string(e.buf)
			if e.submit == nil || e.submit(src) {
				e.finish("")
				return src, nil
			}
			e.newline()
		case ekNewline:
			e.newline()
		case ekInterrupt:
			e.finish("^C")
			return "", errReplInterrupt
		case ekEOF:
			switch {
			case len(e.buf) == 0:
				e.finish("")
				return "", io.EOF
			case e.pos < len(e.buf):
				e.buf = slices.Delete(e.buf, e.pos, e.pos+1)
			default:
				e.finish("^D")
				return "", errReplDiscard
			}
		case ekBackspace:
			if e.pos > 0 {
				e.pos--
				e.buf = slices.Delete(e.buf, e.pos, e.pos+1)
			}
		case ekDelete:
			if e.pos < len(e.buf) {
				e.buf = slices.Delete(e.buf, e.pos, e.pos+1)
			}
		case ekLeft:
			e.pos = max(e.pos-1, 0)
		case ekRight:
			e.pos = min(e.pos+1, len(e.buf))
		case ekHome:
			if ls := e.lineStart(e.pos); ls == e.pos {
				e.pos = 0
			} else {
				e.pos = ls
			}
		case ekEnd:
			if le := e.lineEnd(e.pos); le == e.pos {
				e.pos = len(e.buf)
			} else {
				e.pos = le
			}
		case ekWordLeft:
			e.pos = e.wordStart(e.pos)
		case ekWordRight:
			e.pos = e.wordEnd(e.pos)
		case ekUp:
			if !e.lineUp() {
				e.historyMove(-1)
			}
		case ekDown:
			if !e.lineDown() {
				e.historyMove(1)
			}
		case ekHistPrev:
			e.historyMove(-1)
		case ekHistNext:
			e.historyMove(1)
		case ekKillLineStart:
			ls := e.lineStart(e.pos)
			if ls == e.pos && e.pos > 0 {
				ls-- // at the start of a line: join it to the one above
			}
			e.cut(ls, e.pos)
		case ekKillLineEnd:
			le := e.lineEnd(e.pos)
			if le == e.pos && e.pos < len(e.buf) {
				le++ // at the end of a line: join the next one
			}
			e.cut(e.pos, le)
		case ekKillWordBack:
			e.cut(e.wordStart(e.pos), e.pos)
		case ekKillWordFwd:
			e.cut(e.pos, e.wordEnd(e.pos))
		case ekYank:
			e.buf = slices.Insert(e.buf, e.pos, e.kill...)
			e.pos += len(e.kill)
		case ekTranspose:
			if e.pos > 0 && len(e.buf) > 1 {
				p := min(e.pos, len(e.buf)-1)
				e.buf[p-1], e.buf[p] = e.buf[p], e.buf[p-1]
				e.pos = p + 1
			}
		case ekClear:
			fmt.Fprint(e.out, "\x1b[H\x1b[2J")
			e.row = 0
		case ekSearch:
			e.search = &replSearch{idx: len(e.hist.Entries), saveBuf: slices.Clone(e.buf), savePos: e.pos}
			e.searchFind(len(e.hist.Entries) - 1)
		case ekTab:
			e.complete()
		case ekPasteStart:
			e.paste, e.lastCR = true, false
			continue // draw once the paste is in
		}
		e.refreshLater()
	}
}

// pasteKey inserts a pasted key as text: newlines do not submit.
func (e *lineEditor) pasteKey(k edKey) {
	cr := false
	switch k.kind {
	case ekPasteEnd:
		e.paste = false
		e.refresh()
		return
	case ekRune:
		e.insert(k.r)
	case ekTab:
		e.insert(' ')
		e.insert(' ')
	case ekEnter:
		cr = true
		if !e.lastCR || k.r != '\n' { // CR LF is one line end
			e.insert('\n')
		}
	}
	e.lastCR = cr
}

func (e *lineEditor) insert(r rune) {
	if r == '\t' {
		r = ' '
	}
	if r != '\n' && (r < 0x20 || r == 0x7f) {
		return
	}
	e.buf = slices.Insert(e.buf, e.pos, r)
	e.pos++
}

// newline opens a continuation line, indented to the open brackets.
func (e *lineEditor) newline() {
	ind := Indent(e.buf[:e.pos])
	e.insert('\n')
	for range ind {
		e.insert(' ')
	}
}

func (e *lineEditor) cut(from, to int) {
	if from >= to {
		return
	}
	e.kill = slices.Clone(e.buf[from:to])
	e.buf = slices.Delete(e.buf, from, to)
	e.pos = from
}

func (e *lineEditor) lineStart(p int) int {
	for p > 0 && e.buf[p-1] != '\n' {
		p--
	}
	return p
}

func (e *lineEditor) lineEnd(p int) int {
	for p < len(e.buf) && e.buf[p] != '\n' {
		p++
	}
	return p
}

// wordStart is where Ctrl-W and Alt-B stop: the start of the symbol
// before p, or of the run of brackets there.
func (e *lineEditor) wordStart(p int) int {
	for p > 0 && unicode.IsSpace(e.buf[p-1]) {
		p--
	}
	if p > 0 && replDelimiter(e.buf[p-1]) {
		for p > 0 && replDelimiter(e.buf[p-1]) && !unicode.IsSpace(e.buf[p-1]) {
			p--
		}
		return p
	}
	for p > 0 && !replDelimiter(e.buf[p-1]) {
		p--
	}
	return p
}

// wordEnd is wordStart forwards.
func (e *lineEditor) wordEnd(p int) int {
	n := len(e.buf)
	for p < n && unicode.IsSpace(e.buf[p]) {
		p++
	}
	if p < n && replDelimiter(e.buf[p]) {
		for p < n && replDelimiter(e.buf[p]) && !unicode.IsSpace(e.buf[p]) {
			p++
		}
		return p
	}
	for p < n && !replDelimiter(e.buf[p]) {
		p++
	}
	return p
}

// lineUp moves the cursor to the line above in the input, if any.
func (e *lineEditor) lineUp() bool {
	ls := e.lineStart(e.pos)
	if ls == 0 {
		return false
	}
	col := e.pos - ls
	prev := e.lineStart(ls - 1)
	e.pos = prev + min(col, ls-1-prev)
	return true
}

// lineDown moves the cursor to the line below in the input, if any.
func (e *lineEditor) lineDown() bool {
	le := e.lineEnd(e.pos)
	if le == len(e.buf) {
		return false
	}
	col := e.pos - e.lineStart(e.pos)
	next := le + 1
	e.pos = next + min(col, e.lineEnd(next)-next)
	return true
}

// historyMove shows an older (delta -1) or newer (+1) input. Going back,
// the cursor ends the first line so that Up keeps going back; going
// forward, it ends the input so that Down keeps going forward.
func (e *lineEditor) historyMove(delta int) {
	n := len(e.hist.Entries)
	i := e.hidx + delta
	if i < 0 || i > n {
		return
	}
	if e.hidx == n {
		e.draft = slices.Clone(e.buf)
	}
	e.hidx = i
	if i == n {
		e.buf = slices.Clone(e.draft)
	} else {
		e.buf = []rune(e.hist.Entries[i])
	}
	e.pos = len(e.buf)
	if delta < 0 {
		e.pos = e.lineEnd(0)
	}
}

// searchKey handles a key during Ctrl-R; it returns true when the search
// ends and the key should be handled as usual.
func (e *lineEditor) searchKey(k edKey) bool {
	s := e.search
	switch k.kind {
	case ekRune:
		s.query = append(s.query, k.r)
		e.searchFind(min(s.idx, len(e.hist.Entries)-1))
		return false
	case ekBackspace:
		if len(s.query) > 0 {
			s.query = s.query[:len(s.query)-1]
		}
		e.searchFind(len(e.hist.Entries) - 1)
		return false
	case ekSearch:
		if len(s.query) > 0 && s.idx > 0 {
			e.searchFind(s.idx - 1)
		}
		return false
	case ekCancel, ekInterrupt:
		e.buf, e.pos, e.search = s.saveBuf, s.savePos, nil
		return false
	}
	e.search = nil // keep what was found and handle the key
	e.hidx = len(e.hist.Entries)
	return k.kind != ekNone
}

// searchFind shows the newest entry at or before index from that holds
// the query.
func (e *lineEditor) searchFind(from int) {
	s := e.search
	q := string(s.query)
	if q == "" {
		s.idx = len(e.hist.Entries)
		e.buf, e.pos = slices.Clone(s.saveBuf), s.savePos
		return
	}
	for i := from; i >= 0; i-- {
		entry := e.hist.Entries[i]
		if j := strings.LastIndex(entry, q); j >= 0 {
			s.idx = i
			e.buf = []rune(entry)
			e.pos = utf8.RuneCountInString(entry[:j])
			return
		}
	}
	s.idx = -1
}

// complete completes the word before the cursor (Tab): the common prefix
// of the candidates, and their list when that adds nothing.
func (e *lineEditor) complete() {
	if e.completions == nil {
		return
	}
	start, cands := e.completions(e.buf, e.pos)
	word := string(e.buf[start:e.pos])
	if word == "" {
		e.insert(' ')
		e.insert(' ')
		return
	}
	if len(cands) == 0 {
		return
	}
	common := cands[0]
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c, common) {
			_, size := utf8.DecodeLastRuneInString(common)
			common = common[:len(common)-size]
		}
	}
	if len(common) > len(word) {
		add := []rune(common[len(word):])
		e.buf = slices.Insert(e.buf, e.pos, add...)
		e.pos += len(add)
		return
	}
	if len(cands) == 1 {
		return
	}
	// Show the candidates under the input and draw it again below them.
	pos := e.pos
	e.pos = len(e.buf)
	e.refresh()
	var b strings.Builder
	b.WriteString("\r\n")
	replColumns(&b, cands, e.width(), "\r\n")
	fmt.Fprint(e.out, b.String())
	e.row, e.pos = 0, pos
}

// replColumns lists words in columns, down then across.
func replColumns(b *strings.Builder, words []string, width int, nl string) {
	const most = 120
	shown := words
	if len(shown) > most {
		shown = shown[:most]
	}
	colw := 0
	for _, w := range shown {
		colw = max(colw, replTextWidth(w)+2)
	}
	cols := max(1, min(width-1, 160)/colw)
	rows := (len(shown) + cols - 1) / cols
	for r := range rows {
		for c := range cols {
			i := c*rows + r
			if i >= len(shown) {
				break
			}
			w := shown[i]
			b.WriteString(w)
			if c < cols-1 && (c+1)*rows+r < len(shown) {
				b.WriteString(strings.Repeat(" ", colw-replTextWidth(w)))
			}
		}
		b.WriteString(nl)
	}
	if len(words) > most {
		fmt.Fprintf(b, "… and %d more%s", len(words)-most, nl)
	}
}

// finish moves below the input, after writing mark (^C, ^D) at its end.
func (e *lineEditor) finish(mark string) {
	e.search = nil
	e.pos = len(e.buf)
	e.draw(false)
	if mark != "" || !e.wrapped {
		fmt.Fprint(e.out, mark+"\r\n")
	}
	e.row = 0
}

// refreshLater redraws unless more input is already waiting: a paste into
// a terminal without bracketed paste is drawn once.
func (e *lineEditor) refreshLater() {
	if !e.in.buffered() {
		e.refresh()
	}
}

func (e *lineEditor) refresh() { e.draw(e.color) }

// draw redraws the input from its first row and puts the cursor in place.
// A line as wide as the terminal gets an explicit line break, so that the
// cursor after its last column is on the next row, as computed.
func (e *lineEditor) draw(highlight bool) {
	width := 80
	if e.width != nil {
		if w := e.width(); w > 0 {
			width = w
		}
	}
	var b strings.Builder
	if e.row > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", e.row)
	}
	b.WriteString("\r\x1b[J")
	first, styled := e.prompt, e.styledPrompt()
	if s := e.search; s != nil {
		state := "search"
		if s.idx < 0 {
			state = "failing search"
		}
		first = fmt.Sprintf("(%s `%s') ", state, string(s.query))
		styled = first
	}
	match := -1
	if highlight {
		match = MatchingBracket(e.buf, e.pos)
	}
	row, curRow, curCol, d := 0, 0, 0, 0
	for start := 0; ; {
		end := e.lineEnd(start)
		p, sp := e.contPrompt, e.contPrompt
		if start == 0 {
			p, sp = first, styled
		}
		b.WriteString(sp)
		d = replTextWidth(p)
		for j := start; j <= end; j++ {
			if j == e.pos {
				curRow, curCol = row+d/width, d%width
			}
			if j == end {
				break
			}
			r := e.buf[j]
			if j == match {
				b.WriteString("\x1b[1;36m")
				b.WriteRune(r)
				b.WriteString("\x1b[0m")
			} else {
				b.WriteRune(r)
			}
			d += replRuneWidth(r)
		}
		e.wrapped = d%width == 0
		if e.wrapped {
			b.WriteString("\r\n")
		}
		row += d / width
		if end == len(e.buf) {
			break
		}
		b.WriteString("\r\n")
		row++
		start = end + 1
	}
	if row > curRow {
		fmt.Fprintf(&b, "\x1b[%dA", row-curRow)
	}
	b.WriteString("\r")
	if curCol > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", curCol)
	}
	e.row = curRow
	fmt.Fprint(e.out, b.String())
}

func (e *lineEditor) styledPrompt() string {
	if !e.color {
		return e.prompt
	}
	t := strings.TrimRight(e.prompt, " ")
	return "\x1b[1;32m" + t + "\x1b[0m" + e.prompt[len(t):]
}

// readKey decodes the next key press.
func (e *lineEditor) readKey() (edKey, error) {
	b, err := e.in.readByte()
	if err != nil {
		return edKey{}, err
	}
	switch {
	case b == 0x1b:
		return e.readEscape()
	case b == 0x7f:
		return edKey{kind: ekBackspace}, nil
	case b < 0x20:
		return edKey{kind: replCtrlKeys[b], r: rune(b)}, nil
	case b < utf8.RuneSelf:
		return edKey{kind: ekRune, r: rune(b)}, nil
	}
	// A multi-byte UTF-8 rune.
	n := 0
	switch {
	case b&0xe0 == 0xc0:
		n = 1
	case b&0xf0 == 0xe0:
		n = 2
	case b&0xf8 == 0xf0:
		n = 3
	default:
		return edKey{}, nil
	}
	p := []byte{b}
	for range n {
		c, err := e.in.readByte()
		if err != nil {
			return edKey{}, err
		}
		p = append(p, c)
	}
	r, _ := utf8.DecodeRune(p)
	if r == utf8.RuneError {
		return edKey{}, nil
	}
	return edKey{kind: ekRune, r: r}, nil
}

// readEscape decodes what follows an Esc: a CSI or SS3 sequence for the
// arrows and the like, an Alt key, or nothing (a lone Esc).
func (e *lineEditor) readEscape() (edKey, error) {
	b, ok, err := e.in.readByteWithin(replEscWait)
	if !ok {
		return edKey{kind: ekCancel}, err
	}
	switch b {
	case '[':
		var params []byte
		for len(params) < 32 {
			c, ok, err := e.in.readByteWithin(replEscWait)
			if !ok {
				return edKey{}, err
			}
			if c >= 0x40 && c <= 0x7e {
				return csiKey(string(params), c), nil
			}
			params = append(params, c)
		}
		return edKey{}, nil
	case 'O':
		c, ok, err := e.in.readByteWithin(replEscWait)
		if !ok {
			return edKey{}, err
		}
		return csiKey("", c), nil
	case 'b', 'B':
		return edKey{kind: ekWordLeft}, nil
	case 'f', 'F':
		return edKey{kind: ekWordRight}, nil
	case 'd', 'D':
		return edKey{kind: ekKillWordFwd}, nil
	case 0x7f, 0x08:
		return edKey{kind: ekKillWordBack}, nil
	case '\r', '\n':
		return edKey{kind: ekNewline}, nil
	case 0x1b:
		return edKey{kind: ekCancel}, nil
	}
	return edKey{}, nil
}

// csiKey names the key of "Esc [ params final" (or "Esc O final").
func csiKey(params string, final byte) edKey {
	mod := ""
	if i := strings.IndexByte(params, ';'); i >= 0 {
		params, mod = params[:i], params[i+1:]
	}
	word := mod == "5" || mod == "3" || mod == "9" // Ctrl, Alt, Meta
	switch final {
	case 'A':
		return edKey{kind: ekUp}
	case 'B':
		return edKey{kind: ekDown}
	case 'C':
		if word {
			return edKey{kind: ekWordRight}
		}
		return edKey{kind: ekRight}
	case 'D':
		if word {
			return edKey{kind: ekWordLeft}
		}
		return edKey{kind: ekLeft}
	case 'H':
		return edKey{kind: ekHome}
	case 'F':
		return edKey{kind: ekEnd}
	case '~':
		switch params {
		case "1", "7":
			return edKey{kind: ekHome}
		case "4", "8":
			return edKey{kind: ekEnd}
		case "3":
			return edKey{kind: ekDelete}
		case "200":
			return edKey{kind: ekPasteStart}
		case "201":
			return edKey{kind: ekPasteEnd}
		}
	}
	return edKey{}
}

// replDelimiter reports whether r ends a symbol.
func replDelimiter(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("()[]{}\"',;`~@^", r)
}

// replTextWidth is the number of terminal columns s takes.
func replTextWidth(s string) int {
	n := 0
	for _, r := range s {
		n += replRuneWidth(r)
	}
	return n
}

// replRuneWidth approximates the columns a rune takes: none for combining
// marks, two for East Asian wide characters and most emoji.
func replRuneWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && (r <= 0x115f || r == 0x2329 || r == 0x232a ||
		(r >= 0x2e80 && r <= 0xa4cf && r != 0x303f) ||
		(r >= 0xac00 && r <= 0xd7a3) ||
		(r >= 0xf900 && r <= 0xfaff) ||
		(r >= 0xfe30 && r <= 0xfe6f) ||
		(r >= 0xff00 && r <= 0xff60) ||
		(r >= 0xffe0 && r <= 0xffe6) ||
		(r >= 0x1f300 && r <= 0x1f64f) ||
		(r >= 0x1f900 && r <= 0x1f9ff) ||
		(r >= 0x20000 && r <= 0x3fffd)):
		return 2
	}
	return 1
}
