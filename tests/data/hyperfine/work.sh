# work.sh — the command hyperfine times in tests/data/make_import_data.sh: sort
# 200000 numbers; MCPP_SLOW=N sorts N times as many (the regression is extra work).
n=$((200000 * ${MCPP_SLOW:-1}))
seq "$n" | sort -rn >/dev/null
