/*
 * gate_words.h — a difference a gate candidate has from its baselines in the
 * words the text report and the JUnit XML share, so that both say it alike.
 */
#ifndef MCPP_RENDER_GATE_WORDS_H
#define MCPP_RENDER_GATE_WORDS_H

#include "analysis/gate_internal.h"
#include "util/strbuf.h"

/* Appends "rule NAME" or "dimension NAME", then " STATUS: baseline X,
 * candidate Y" ("-" for a side that states nothing), every string from the
 * receipts or the policy through `escape` (mcpp_sb_terminal, mcpp_sb_html). */
void mcpp_sb_gate_difference(mcpp_strbuf *b, const gate_difference *d, void (*escape)(mcpp_strbuf *, const char *));

#endif
