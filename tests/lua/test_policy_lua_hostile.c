/*
 * test_policy_lua_hostile.c — every hostile policy in tests/lua/hostile/ is
 * refused with a policy or limit error naming the file, all in one process,
 * and the process is unaffected afterwards: a bytecode chunk made here with
 * lua_dump is refused too, and then a good policy loads and its rule runs.
 *
 * usage: test_policy_lua_hostile HOSTILE_DIR GOOD_POLICY WORK_DIR
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/policy_lua.h"
#include "test_util.h"

static const char *hostile_dir;
static const char *good_policy;
static const char *work_dir;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

TEST(every_hostile_policy_is_refused_with_a_located_policy_or_limit_error)
{
    DIR *d = opendir(hostile_dir);
    CHECK(d != NULL);
    if (!d)
        return;
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".lua") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    CHECK(n >= 15);
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", hostile_dir, names[i]);
        mcpp_policy *p = NULL;
        int rc = mcpp_policy_load_lua_file(&p, path, NULL);
        const mcpp_error *err = mcpp_error_last();
        int refused = p == NULL && (rc == MCPP_EPOLICY || rc == MCPP_ELIMIT);
        printf("  %-28s %-7s %s\n", names[i], refused ? "refused" : "LOADED", err->message);
        CHECK(refused);
        CHECK(err->file != NULL);
        if (err->file && strncmp(names[i], "include_", 8) != 0)
            CHECK_CONTAINS(err->file, names[i]);
        mcpp_policy_free(p);
        free(names[i]);
    }
}

static int write_chunk(lua_State *L, const void *p, size_t sz, void *ud)
{
    (void)L;
    return fwrite(p, 1, sz, (FILE *)ud) == sz ? 0 : 1;
}

TEST(bytecode_chunk_is_refused_as_file_and_as_buffer)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/bytecode.lua", work_dir);
    lua_State *L = luaL_newstate();
    CHECK_INT_EQ(luaL_loadstring(L, "return { name = 'from bytecode' }"), LUA_OK);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        lua_dump(L, write_chunk, f, 0);
        fclose(f);
    }
    lua_close(L);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, path, NULL), MCPP_EPOLICY);
    CHECK_CONTAINS(mcpp_error_last()->message, "binary chunk");
    const char bytes[] = "\x1bLua\x54\x00garbage";
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, bytes, sizeof bytes - 1, "b.lua", NULL), MCPP_EPOLICY);
    CHECK(p == NULL);
}

TEST(good_policy_loads_and_runs_after_all_the_hostile_ones)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, good_policy, NULL), MCPP_OK);
    CHECK(p != NULL);
    CHECK(mcpp_policy_dimension_count(p) > 0);
    mcpp_policy_free(p);
    const char *text = "local n = 0 for i = 1, 100000 do n = n + i end\n"
                       "local s = string.rep('ab', 1000)\n"
                       "return { name = 'fine' .. #s .. (n > 0 and '' or 'x'), rules = { function() end } }";
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, text, strlen(text), "fine.lua", NULL), MCPP_OK);
    CHECK_STR_EQ(mcpp_policy_name(p), "fine2000");
    CHECK_INT_EQ(mcpp_policy_rule_count(p), 1);
    mcpp_policy_free(p);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s HOSTILE_DIR GOOD_POLICY WORK_DIR\n", argv[0]);
        return 2;
    }
    hostile_dir = argv[1];
    good_policy = argv[2];
    work_dir = argv[3];
    RUN(every_hostile_policy_is_refused_with_a_located_policy_or_limit_error);
    RUN(bytecode_chunk_is_refused_as_file_and_as_buffer);
    RUN(good_policy_loads_and_runs_after_all_the_hostile_ones);
    TEST_MAIN_END();
}
