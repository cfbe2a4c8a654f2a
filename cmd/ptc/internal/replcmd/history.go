package replcmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// HistoryLimit bounds the inputs the REPL remembers, in memory and on disk.
const HistoryLimit = 1000

// History holds earlier inputs, oldest first. Each input is a whole form,
// newlines included. With a path, inputs are appended to that file, one
// JSON string a line, so a multi-line form stays one entry; saving is best
// effort and a file that cannot be read or written is simply not used.
type History struct {
	Entries []string
	max     int
	path    string
}

// HistoryPath returns the file for the REPL's history: the --history flag
// or else PTC_HISTORY, "off" (or "0", "false", "none") for none, and by
// default ptc/history under the user's configuration directory.
func HistoryPath(flagValue string) string {
	v := flagValue
	if v == "" {
		v = os.Getenv("PTC_HISTORY")
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "0", "false", "no", "none":
		return ""
	case "":
		dir, err := os.UserConfigDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "ptc", "history")
	}
	return v
}

// LoadHistory reads the history file at path ("" for an unsaved history).
func LoadHistory(path string, max int) *History {
	h := &History{max: max, path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	lines := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		lines++
		var entry string
		if json.Unmarshal([]byte(line), &entry) != nil {
			entry = line // written by hand: take the line as it is
		}
		h.push(entry)
	}
	if lines > max+max/2 {
		h.rewrite() // keep the file bounded too
	}
	return h
}

// push adds an entry in memory, skipping an immediate repeat.
func (h *History) push(entry string) bool {
	if entry == "" || (len(h.Entries) > 0 && h.Entries[len(h.Entries)-1] == entry) {
		return false
	}
	h.Entries = append(h.Entries, entry)
	if len(h.Entries) > h.max {
		h.Entries = append(h.Entries[:0:0], h.Entries[len(h.Entries)-h.max:]...)
	}
	return true
}

// add records an input and appends it to the file.
func (h *History) add(entry string) {
	entry = strings.TrimRight(entry, " \t\r\n")
	if strings.TrimSpace(entry) == "" || !h.push(entry) || h.path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	b, _ := json.Marshal(entry)
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}

// rewrite replaces the file with the entries in memory.
func (h *History) rewrite() {
	var b strings.Builder
	for _, e := range h.Entries {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	tmp := h.path + ".tmp"
	if os.WriteFile(tmp, []byte(b.String()), 0o600) != nil {
		_ = os.Remove(tmp)
		return
	}
	if os.Rename(tmp, h.path) != nil {
		_ = os.Remove(tmp)
	}
}
