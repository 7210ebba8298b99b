/*
 * hostinfo.c — CPU model, core count, host name and memory from the OS.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mcpp_kernels/hostinfo.h"

void mcpp_kernel_host_query(mcpp_kernel_host_info *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->cpu, sizeof out->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) != 0) continue;
            const char *colon = strchr(line, ':');
            if (!colon) continue;
            colon++;
            while (*colon == ' ' || *colon == '\t') colon++;
            snprintf(out->cpu, sizeof out->cpu, "%s", colon);
            out->cpu[strcspn(out->cpu, "\n")] = '\0';
            break;
        }
        fclose(f);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    out->cores = n > 0 ? (int)n : 1;
    if (gethostname(out->host, sizeof out->host - 1) != 0) snprintf(out->host, sizeof out->host, "unknown");
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) out->memory_gib = (double)pages * (double)page / (1024.0 * 1024.0 * 1024.0);
}
