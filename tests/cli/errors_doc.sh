#!/usr/bin/env bash
# docs/errors.md has one entry per message profkit prints, and no more: every
# message key tests/errors/extract_messages.py finds in src/ must be the
# heading (### `KEY`) of an entry, and every such heading must still be a key
# found in the code. The extractor must also find messages known to exist, so
# an extractor that finds nothing cannot pass.
. "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8
doc="$PROFKIT_SRC/docs/errors.md"
py=$(command -v python3) || { echo "SKIP: no python3"; exit 77; }
if ! "$py" "$PROFKIT_SRC/tests/errors/extract_messages.py" "$PROFKIT_SRC/src" > "$TMP/msgs"; then
  fail "extract_messages.py failed"
  finish
fi
# Keys of the page: the code span of each '### `KEY`' heading.
sed -n 's/^### `\(.*\)`$/\1/p' "$doc" | sort -u > "$TMP/doc_keys"
cut -f2 "$TMP/msgs" | sort -u > "$TMP/code_keys"

# Messages known to be in the code.
for known in "unrecognized profile format (tried: …); use --format to name it" \
             "empty input" \
             "unknown input format '…' (readable formats: …)" \
             "JSON: the input ends inside the document (truncated file?)" \
             "no input file"; do
  if grep -Fxq -- "$known" "$TMP/code_keys"; then pass; else fail "extractor did not find the known message [$known]"; fi
done
n=$(wc -l < "$TMP/code_keys")
if [ "$n" -ge 200 ]; then pass; else fail "extractor found only $n distinct messages (expected 200 or more)"; fi

# Calls whose format is not a literal cannot be checked: there must be none.
while IFS=$'\t' read -r where key; do
  case "$key" in
    "(non-literal format:"*) fail "$where: $key: use a literal format so docs/errors.md can document it" ;;
  esac
done < "$TMP/msgs"

# Every message of the code has an entry.
while IFS=$'\t' read -r where key; do
  case "$key" in "(non-literal format:"*) continue ;; esac
  if grep -Fxq -- "$key" "$TMP/doc_keys"; then pass; else fail "$where: message [$key] has no entry in docs/errors.md (add a heading ### \`$key\`)"; fi
done < "$TMP/msgs"

# Every entry of the page is still a message of the code.
while IFS= read -r key; do
  if grep -Fxq -- "$key" "$TMP/code_keys"; then pass; else fail "docs/errors.md: entry [$key] matches no message in src/ (remove or update it)"; fi
done < "$TMP/doc_keys"
finish
