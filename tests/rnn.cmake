# The recurrent layers lstm, gru and rnn (nn.LSTM, nn.GRU, nn.RNN): their counts against
# PyTorch's and hand derivations, their CPU kernels against a direct loop, PyTorch's outputs and
# finite differences, and their refusals.
sm_add_c_test(test_rnn test_rnn.c)
