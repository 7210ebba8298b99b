/*
 * tool_output.c — which benchmark tool wrote a text, from the keys or lines
 * each tool's output carries near its start. The receipt loader names the
 * tool when a file that is not a receipt is another tool's results: given
 * Google Benchmark's own JSON, `gate --baseline` said "context: unknown
 * top-level field" and "benchmarks: ... did you mean 'benchmark'?", where the
 * user needed `mcpp-receipts import google-benchmark`. The importers name it
 * when handed another format than the one asked for. It also tells several
 * receipts in one file (what `store export` writes) from one.
 */
#define _GNU_SOURCE /* memmem: a GNU extension, also in every BSD libc */
#include <string.h>

#include "io/tool_output.h"

#define HEAD_BYTES 65536

static int has(const char *head, size_t n, const char *mark) { return memmem(head, n, mark, strlen(mark)) != NULL; }

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

const char *mcpp_tool_output_of(const char *text, size_t len, const char **format)
{
    /* most specific first: pytest-benchmark's files also have "benchmarks",
     * MLPerf Inference's logs also have ":::MLLOG" */
    static const struct {
        const char *mark, *also, *tool, *format;
    } MARKS[] = {
        {"\"machine_info\"", "\"benchmarks\"", "pytest-benchmark", "pytest-benchmark"},
        {"\"context\"", "\"benchmarks\"", "Google Benchmark", "google-benchmark"},
        {"\"result_columns\"", "\"results\"", "asv", "asv"},
        {"\"command\"", "\"results\"", "hyperfine", "hyperfine"},
        {"\"runs\"", "\"benchmarks\"", "pyperf", "pyperf"},
        {":::MLLOG", "loadgen_version", "MLPerf Inference", "mlperf-inference"},
        {":::MLLOG", ":::MLLOG", "MLPerf Training", "mlperf"},
        {"\"Action\"", "\"Package\"", "go test -json", "go-bench"},
        {"\nBenchmark", " ns/op", "go test -bench", "go-bench"},
    };
    size_t n = len < HEAD_BYTES ? len : HEAD_BYTES;
    if (!text || has(text, n, "mcpp.receipt/"))
        return NULL;
    for (size_t i = 0; i < sizeof MARKS / sizeof MARKS[0]; i++)
        if (has(text, n, MARKS[i].mark) && has(text, n, MARKS[i].also)) {
            if (format)
                *format = MARKS[i].format;
            return MARKS[i].tool;
        }
    return NULL;
}

const char *mcpp_several_receipts_of(const char *text, size_t len)
{
    size_t i = 0, n = len < HEAD_BYTES ? len : HEAD_BYTES;
    while (i < len && is_blank(text[i]))
        i++;
    if (i == len || !has(text, n, "\"mcpp.receipt/"))
        return NULL;
    if (text[i] == '[')
        return "a list of receipts (as `mcpp-receipts store export --format json` writes)";
    /* JSON lines: the first line is a whole object ('{' to '}') and a later
     * line starts another; an indented receipt's first line is "{" alone */
    const char *nl = memchr(text + i, '\n', len - i), *last = nl;
    while (last && last > text + i && is_blank(last[-1]))
        last--;
    if (text[i] != '{' || !last || last <= text + i + 1 || last[-1] != '}')
        return NULL;
    for (; nl && nl + 1 < text + len; nl = memchr(nl + 1, '\n', (size_t)(text + len - nl - 1)))
        if (nl[1] == '{')
            return "receipts one a line (as `mcpp-receipts store export --format jsonl` writes)";
    return NULL;
}
