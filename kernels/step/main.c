/*
 * main.c — mcpp-step: run a hybrid A/M/E/R layer stack for a measured window
 * and write an honest receipt. See `mcpp-step --help`.
 */
#include "step.h"

int main(int argc, char **argv)
{
    step_options opt;
    int rc = step_parse_args(&opt, argc, argv);
    if (rc >= 0) return rc;
    step_result res;
    rc = step_run(&res, &opt);
    if (rc == STEP_EXIT_OK) rc = step_write_receipt(&opt, &res);
    step_result_release(&res);
    return rc;
}
