# Sourced by .ci/run and .ci/wheel. A download cut off mid-file (seen in CI: onnxruntime's 28 MB wheel, six
# resumes in a row) fails an install: pip resumes more often, and `retry CMD...` tries a command three times,
# 30 s then 60 s apart, before giving up with its exit status.
export PIP_RESUME_RETRIES=20 PIP_RETRIES=10
retry() {
  local n rc
  for n in 1 2 3; do
    "$@" && return 0
    rc=$?
    [ "$n" = 3 ] || { echo "attempt $n failed (exit $rc): $*; again in $((30 * n)) s" >&2; sleep $((30 * n)); }
  done
  return "$rc"
}
