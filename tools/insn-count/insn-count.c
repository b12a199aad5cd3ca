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
 * docs/bench.md's aarch64 column counts. The counter is one 64-bit word
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

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;

enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

EXPORT int qemu_plugin_version = 1;

static uint64_t executed;

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, qemu_plugin_tb_n_insns(tb));
}

static void exited(qemu_plugin_id_t id, void *userdata) {
    (void)id, (void)userdata;
    char line[64];
    snprintf(line, sizeof line, "insn-count: %" PRIu64 "\n", executed);
    qemu_plugin_outs(line);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info, (void)argc, (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_atexit_cb(id, exited, NULL);
    return 0;
}
