#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

#define DEFAULT_PORT 7400
#define DEFAULT_BACKLOG 64
#define MAX_LINE 1024

static void config_defaults(struct config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->port = DEFAULT_PORT;
    cfg->backlog = DEFAULT_BACKLOG;
    cfg->idle_timeout_ms = 30000;
    strncpy(cfg->bind_address, "0.0.0.0", sizeof(cfg->bind_address) - 1);
}

static int parse_port(const char *value, int *out)
{
    char *end = NULL;
    long port = strtol(value, &end, 10);
    if (end == value || *end != '\0' || port < 1 || port > 65535) {
        return -1;
    }
    *out = (int)port;
    return 0;
}

int config_load(const char *path, struct config *cfg)
{
    char line[MAX_LINE];
    int lineno = 0;
    FILE *fp = fopen(path, "r");

    config_defaults(cfg);
    if (fp == NULL) {
        log_error("cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof(line), fp) != NULL) {
        char key[64], value[256];
        lineno++;
        if (line[0] == '#' || line[0] == '\n') {
            continue;
        }
        if (sscanf(line, "%63s = %255s", key, value) != 2) {
            log_warn("%s:%d: expected key = value", path, lineno);
            continue;
        }
        if (strcmp(key, "port") == 0) {
            if (parse_port(value, &cfg->port) != 0) {
                log_warn("%s:%d: bad port %s", path, lineno, value);
            }
        } else if (strcmp(key, "backlog") == 0) {
            cfg->backlog = atoi(value);
        } else if (strcmp(key, "idle_timeout_ms") == 0) {
            cfg->idle_timeout_ms = atoi(value);
        } else {
            log_warn("%s:%d: unknown key %s", path, lineno, key);
        }
    }
    fclose(fp);
    return 0;
}
