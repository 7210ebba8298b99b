/*
 * tool_output.h — which benchmark tool wrote a text, or whether it holds
 * several receipts, told from the marks near its start (io/tool_output.c).
 */
#ifndef MCPP_IO_TOOL_OUTPUT_H
#define MCPP_IO_TOOL_OUTPUT_H

#include <stddef.h>

/* The tool that wrote `text` ("Google Benchmark"), judged from its first
 * 64 KiB, or NULL when no known tool's marks are there or the text names a
 * receipt schema (a receipt imported from that tool keeps its marks in
 * `extra`). *format (may be NULL) gets the name `mcpp-receipts import` knows
 * the tool's output by ("google-benchmark"). */
const char *mcpp_tool_output_of(const char *text, size_t len, const char **format);

/* What `text` is when it holds several receipts, as `store export` writes
 * them ("a list of receipts (...)", "receipts one a line (...)"), else NULL. */
const char *mcpp_several_receipts_of(const char *text, size_t len);

#endif
