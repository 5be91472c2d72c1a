# On a terminal, fak shows a progress line during the quiet window.
set -eu
script -qec "$FAK bench system-baseline --baseline-duration 300ms --interval 50ms -- true >/dev/null" typescript >/dev/null
grep -q "quiet baseline window" typescript
