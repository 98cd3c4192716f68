package netdelay

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TakeSocket takes pc's socket as a probe does; it returns one exchange
// (an empty query) on it and its closing.
func TakeSocket(ctx context.Context, pc *pgconn.PgConn) (exchange func() (time.Duration, error), closeSocket func(), err error) {
	x, err := newExchanger(ctx, pc)
	if err != nil {
		return nil, nil, err
	}
	return x.exchange, x.close, nil
}
