/*
 * Counts the guest instructions a program runs under qemu-user: a TCG
 * plugin (docs/devel/tcg-plugins in QEMU) that adds each translation
 * block's instruction count to a counter every time the block runs, and
 * prints the total when the program exits:
 *
 *     qemu-aarch64 -plugin ./insn-count.so -d plugin chakrad bench ...
 *     -> "insn-count: 123456789"
 *
 * It is valgrind's callgrind total for another instruction set: what
 * docs/bench.md's aarch64 column counts.
 *
 * With the argument profile=PATH it also counts per translation block and
 * writes, at exit, one line a block that ran: its address, its
 * instructions, how many times it ran and the ELF symbol it starts in
 * (qemu-user reads the binary's symbol table; "?" where there is none).
 * count.py --profile sums them per function: where aarch64 spends the
 * instructions callgrind cannot count here. The counter is one 64-bit word
 * added to inline, without a lock: exact for one guest thread at a time
 * (bench --threads 1); several threads running together could lose counts.
 *
 * Written against QEMU 7.2's plugin API (Debian 12's qemu-user), version
 * 1, whose few declarations it needs are repeated here: Debian ships no
 * header for it.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);

EXPORT int qemu_plugin_version = 1;

static uint64_t executed;

/// profile=PATH: one record a translated block (a block translated again,
/// after a flush, gets another record; the script sums by address).
struct block {
    uint64_t vaddr, insns, runs;
    const char *symbol;
    struct block *next;
};
static struct block *blocks;
static const char *profile_path;

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t insns = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, insns);
    if (!profile_path) return;
    struct block *b = calloc(1, sizeof *b);
    if (!b) return;
    const char *symbol = insns ? qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0)) : NULL;
    *b = (struct block){qemu_plugin_tb_vaddr(tb), insns, 0, symbol ? symbol : "?", blocks};
    blocks = b;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->runs, 1);
}

static void write_profile(void) {
    FILE *out = fopen(profile_path, "w");
    if (!out) {
        qemu_plugin_outs("insn-count: cannot write the profile\n");
        return;
    }
    for (struct block *b = blocks; b; b = b->next)
        if (b->runs) fprintf(out, "%" PRIx64 " %" PRIu64 " %" PRIu64 " %s\n", b->vaddr, b->insns, b->runs, b->symbol);
    fclose(out);
}

static void exited(qemu_plugin_id_t id, void *userdata) {
    (void)id, (void)userdata;
    char line[64];
    snprintf(line, sizeof line, "insn-count: %" PRIu64 "\n", executed);
    qemu_plugin_outs(line);
    if (profile_path) write_profile();
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "profile=", 8) == 0) profile_path = strdup(argv[i] + 8);
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_atexit_cb(id, exited, NULL);
    return 0;
}
