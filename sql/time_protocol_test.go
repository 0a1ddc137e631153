package sql_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// time travels the extended protocol in both formats: as a binary
// parameter (int64 microseconds since midnight) into a time(3) column,
// which rounds it, and back out in binary and in text, and as a binary
// time[] parameter.
func TestTimeExtendedProtocol(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, serve(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE tt_proto (id int PRIMARY KEY, t time(3), ts time[])"); err != nil {
		t.Fatal(err)
	}
	const noon = 12 * 3_600_000_000
	in := pgtype.Time{Microseconds: noon + 34*60_000_000 + 56_789_499, Valid: true} // 12:34:56.789499
	end := pgtype.Time{Microseconds: 24 * 3_600_000_000, Valid: true}
	if _, err := conn.Exec(ctx, "INSERT INTO tt_proto VALUES (1, $1, $2), (2, NULL, NULL)", in, []pgtype.Time{end, {}}); err != nil {
		t.Fatal(err)
	}

	sd, err := conn.Prepare(ctx, "", "SELECT t FROM tt_proto WHERE t = $1")
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.ParamOIDs) != 1 || sd.ParamOIDs[0] != pgtype.TimeOID || sd.Fields[0].DataTypeOID != pgtype.TimeOID || sd.Fields[0].TypeModifier != 3 {
		t.Errorf("described parameters %v and field %+v, want time and time(3)", sd.ParamOIDs, sd.Fields[0])
	}

	var bin pgtype.Time
	var arr []pgtype.Time
	if err := conn.QueryRow(ctx, "SELECT t, ts FROM tt_proto WHERE id = 1", pgx.QueryResultFormats{pgx.BinaryFormatCode, pgx.BinaryFormatCode}).Scan(&bin, &arr); err != nil {
		t.Fatal(err)
	}
	if want := int64(noon + 34*60_000_000 + 56_789_000); !bin.Valid || bin.Microseconds != want {
		t.Errorf("binary time = %+v, want %d microseconds", bin, want)
	}
	if len(arr) != 2 || arr[0] != end || arr[1].Valid {
		t.Errorf("binary time[] = %+v, want [24:00:00 NULL]", arr)
	}

	var text, textArr string
	if err := conn.QueryRow(ctx, "SELECT t, ts FROM tt_proto WHERE id = 1", pgx.QueryResultFormats{pgx.TextFormatCode, pgx.TextFormatCode}).Scan(&text, &textArr); err != nil {
		t.Fatal(err)
	}
	if text != "12:34:56.789" || textArr != "{24:00:00,NULL}" {
		t.Errorf("text time and time[] = %q, %q; want 12:34:56.789, {24:00:00,NULL}", text, textArr)
	}

	var id int
	if err := conn.QueryRow(ctx, "SELECT id FROM tt_proto WHERE t = $1", pgtype.Time{Microseconds: bin.Microseconds, Valid: true}).Scan(&id); err != nil || id != 1 {
		t.Errorf("lookup by a binary time parameter: id %d, %v", id, err)
	}
	var null pgtype.Time
	if err := conn.QueryRow(ctx, "SELECT t FROM tt_proto WHERE id = 2").Scan(&null); err != nil || null.Valid {
		t.Errorf("NULL time = %+v, %v", null, err)
	}
	if _, err := conn.Exec(ctx, "SELECT $1::time", pgtype.Time{Microseconds: 24*3_600_000_000 + 1, Valid: true}); sqlstate(err) != "22003" {
		t.Errorf("a binary time past 24:00:00: %v, want 22003", err)
	}
}
