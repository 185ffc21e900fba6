/* registry.c — model ids to their ops. Adding a model: one file pair and one line here. */
#include <stdio.h>
#include <string.h>

#include "model.h"

extern const logt_model_ops logt_lstm_ops;
extern const logt_model_ops logt_lstm_cudnn_ops;
extern const logt_model_ops logt_gilr_ops;
extern const logt_model_ops logt_gilr_lstm_ops;
extern const logt_model_ops logt_sru_ops;
extern const logt_model_ops logt_flashrnn_ops;
extern const logt_model_ops logt_deer_ops;

static const logt_model_ops *const registry[] = {
    &logt_lstm_ops,
    &logt_lstm_cudnn_ops,
    &logt_gilr_ops,
    &logt_gilr_lstm_ops,
    &logt_sru_ops,
    &logt_flashrnn_ops,
    &logt_deer_ops,
};

#define NMODELS ((int)(sizeof registry / sizeof registry[0]))

int logt_model_count(void) { return NMODELS; }
const logt_model_ops *logt_model_at(int i) { return i >= 0 && i < NMODELS ? registry[i] : NULL; }

const logt_model_ops *logt_model_find(const char *name)
{
    for (int i = 0; i < NMODELS; i++)
        if (!strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
}

void logt_model_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < NMODELS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", registry[i]->name);
}
