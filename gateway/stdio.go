package gateway

// refusers are the stdio workers beyond the limits: they answer the calls
// over a limit while every slot is taken (see ServeStdio).
const refusers = 4
