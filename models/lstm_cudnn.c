/* lstm_cudnn.c — placeholder ops; replaced by the cuDNN model. */
#include "model.h"
const logt_model_ops logt_lstm_cudnn_ops = {.name = "lstm-cudnn"};
