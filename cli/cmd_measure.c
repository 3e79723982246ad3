/*
 * scalemeter bench, allreduce and check-plugin: their code (cmd_bench.c, cmd_allreduce.c,
 * cmd_check_plugin.c) is in
 * the cpu backend module with MPI and the executors (calibrate/backend_module.h), so that this
 * program links neither; here they load it and run.
 */
#include <stdio.h>

#include "backend_module.h"
#include "commands.h"
#include "launcher.h"

const sm_backend_module *cpu_module(const char *cmd)
{
    sm_status st = {""};
    const sm_backend_module *m = sm_backend_module_load("cpu", &st);
    if (!m)
        fprintf(stderr, "scalemeter %s: %s\n", cmd, st.msg);
    return m;
}

int cmd_bench(int argc, char **argv)
{
    const sm_backend_module *m = cpu_module("bench");
    return m ? m->bench_main(argc, argv) : 1;
}

void bench_interrupt_note(const char *note)
{
    sm_status st = {""};
    const sm_backend_module *m = sm_backend_module_load("cpu", &st);
    if (m) /* else bench, run next, says why the module does not load */
        m->bench_interrupt_note(note);
}

int cmd_allreduce(int argc, char **argv)
{
    const sm_backend_module *m = cpu_module("allreduce");
    return m ? m->allreduce_main(argc, argv) : 1;
}

int cmd_check_plugin(int argc, char **argv)
{
    const sm_backend_module *m = cpu_module("check-plugin");
    return m ? m->check_plugin_main(argc, argv) : 1;
}
