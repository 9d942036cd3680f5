/* utf8.h - checking UTF-8 text (internal to the engine).
 *
 * Names from input files end up on terminals and in JSON, so the graph
 * refuses names that are not UTF-8 (graph.c) and error messages escape
 * bytes that a terminal would act on (err.c).
 */
#ifndef DNNPART_INTERNAL_UTF8_H
#define DNNPART_INTERNAL_UTF8_H

/* Length (1 to 4) of the well-formed UTF-8 sequence that starts at s, or 0
 * when the byte at s starts none (RFC 3629: no overlong forms, no UTF-16
 * surrogates, nothing past U+10FFFF). s is NUL-terminated; a sequence cut
 * by the NUL is not well-formed; at the NUL itself the result is 0. */
int dpi_utf8_seq_len(const char *s);

#endif
