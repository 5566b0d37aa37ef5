package discover

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"gathermut/mutate/mutant"
)

// lineRange is an inclusive range of new-file lines.
type lineRange struct{ from, to int }

// changedLines runs git diff -U0 <ref> in the module root and returns, per
// module-relative file, the line ranges that differ (added or modified
// lines; pure deletions mark the line after them). Untracked files are not
// in git diff and are therefore not selected.
func changedLines(root, ref string) (map[string][]lineRange, error) {
	out, err := runGit(root, "diff", "-U0", "--no-color", "--relative", ref, "--")
	if err != nil {
		return nil, err
	}
	return parseDiff(out)
}

func parseDiff(out []byte) (map[string][]lineRange, error) {
	ranges := map[string][]lineRange{}
	file := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(line, "+++ "), "b/")
			if file == "/dev/null" {
				file = ""
			}
		case strings.HasPrefix(line, "@@ ") && file != "":
			// @@ -a,b +c,d @@
			fields := strings.Fields(line)
			if len(fields) < 3 || !strings.HasPrefix(fields[2], "+") {
				return nil, fmt.Errorf("in-diff: bad hunk header %q", line)
			}
			startStr, countStr, hasCount := strings.Cut(fields[2][1:], ",")
			start, err := strconv.Atoi(startStr)
			if err != nil {
				return nil, fmt.Errorf("in-diff: bad hunk header %q", line)
			}
			count := 1
			if hasCount {
				if count, err = strconv.Atoi(countStr); err != nil {
					return nil, fmt.Errorf("in-diff: bad hunk header %q", line)
				}
			}
			if count == 0 {
				ranges[file] = append(ranges[file], lineRange{start + 1, start + 1})
				continue
			}
			ranges[file] = append(ranges[file], lineRange{start, start + count - 1})
		}
	}
	return ranges, sc.Err()
}

func filterInDiff(root, ref string, ms []mutant.Mutant) ([]mutant.Mutant, error) {
	ranges, err := changedLines(root, ref)
	if err != nil {
		return nil, err
	}
	return filter(ms, func(m mutant.Mutant) bool { return inChanged(m, ranges[m.File]) }), nil
}

// inChanged reports whether any line of a mutant's range (Pos to End)
// lies in one of a file's changed ranges: every line of a multi-line
// change counts, not only its first, and a mutant spanning several lines
// counts when any of them changed.
func inChanged(m mutant.Mutant, ranges []lineRange) bool {
	end := max(m.End.Line, m.Pos.Line)
	for _, r := range ranges {
		if m.Pos.Line <= r.to && r.from <= end {
			return true
		}
	}
	return false
}

func runGit(dir string, args ...string) ([]byte, error) {
	cmd := newCmd(dir, "git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
