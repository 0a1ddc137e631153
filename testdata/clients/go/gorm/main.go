// The GORM program: AutoMigrate (twice: the second must change nothing),
// the Migrator's checks of what it made, associations created and
// preloaded, queries, a rollback and a savepoint, and a unique violation
// as gorm.ErrDuplicatedKey. See internal/clienttest/orm_py_go_test.go.
package main

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/epochdb/epochdb/testdata/clients/go/internal/check"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

type Customer struct {
	ID        uint
	Name      string `gorm:"size:100;not null"`
	Email     string `gorm:"size:200;not null;uniqueIndex"`
	Profile   *Profile
	Orders    []Order
	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt gorm.DeletedAt `gorm:"index"`
}

type Profile struct {
	ID         uint
	CustomerID uint   `gorm:"uniqueIndex"`
	Bio        string `gorm:"type:text"`
	Premium    bool   `gorm:"not null;default:false"`
}

type Order struct {
	ID         uint
	CustomerID uint   `gorm:"not null;index:idx_orders_customer_status,priority:1"`
	Status     string `gorm:"size:20;not null;default:new;index:idx_orders_customer_status,priority:2"`
	PlacedAt   time.Time
	Items      []Item
	Customer   Customer
}

type Item struct {
	ID        uint
	OrderID   uint `gorm:"not null"`
	ProductID uint `gorm:"not null"`
	Product   Product
	Qty       int `gorm:"not null;check:qty_positive,qty > 0"`
}

type Product struct {
	ID    uint
	SKU   string `gorm:"size:20;not null;uniqueIndex"`
	Name  string `gorm:"not null"`
	Cents int64  `gorm:"not null"`
	Tags  []Tag  `gorm:"many2many:product_tags"`
}

type Tag struct {
	ID   uint
	Name string `gorm:"size:30;not null;unique"`
}

// Note and NoteV2 are one table, notes, before and after a change of the
// model: a longer title, a new indexed column with a default, a nullable
// body made NOT NULL, and a new column (whose unique tag GORM's AddColumn
// leaves out).
type Note struct {
	ID    uint
	Title string `gorm:"size:40;not null"`
	Body  *string
}

type NoteV2 struct {
	ID       uint
	Title    string `gorm:"size:120;not null"`
	Body     string `gorm:"not null;default:''"`
	Priority int16  `gorm:"not null;default:2;index"`
	Code     string `gorm:"size:10;unique"`
}

func (NoteV2) TableName() string { return "notes" }

var models = []any{&Customer{}, &Profile{}, &Product{}, &Tag{}, &Order{}, &Item{}}

// statements records the SQL GORM sends, so that a step can tell what a
// call did.
type statements struct {
	logger.Interface
	mu  sync.Mutex
	sql []string
}

func (s *statements) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	sql, _ := fc()
	s.mu.Lock()
	s.sql = append(s.sql, sql)
	s.mu.Unlock()
}

func (s *statements) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.sql
	s.sql = nil
	return out
}

func main() {
	log := &statements{Interface: logger.Discard}
	// An empty DSN: pgx reads PGHOST, PGPORT, ... itself.
	db, err := gorm.Open(postgres.Open(""), &gorm.Config{TranslateError: true, Logger: log})
	if err != nil {
		check.Step("open", func(t *check.T) { t.NoErr(err, "gorm.Open") })
		check.Finish()
	}
	m := db.Migrator()

	check.Step("AutoMigrate", func(t *check.T) {
		t.NoErr(db.AutoMigrate(models...), "AutoMigrate")
		tables, err := m.GetTables()
		t.NoErr(err, "GetTables")
		slices.Sort(tables)
		t.Eq(tables, []string{"customers", "items", "orders", "product_tags", "products", "profiles", "tags"}, "tables")
	})

	check.Step("AutoMigrate again changes nothing", func(t *check.T) {
		log.take()
		t.NoErr(db.AutoMigrate(models...), "AutoMigrate")
		for _, sql := range log.take() {
			verb := strings.ToUpper(strings.Fields(sql)[0])
			if verb != "SELECT" {
				t.Fatalf("the second AutoMigrate sent %s", sql)
			}
		}
	})

	check.Step("Migrator checks", func(t *check.T) {
		for _, c := range []struct {
			what string
			got  bool
			want bool
		}{
			{"HasTable customers", m.HasTable(&Customer{}), true},
			{"HasTable by name", m.HasTable("product_tags"), true},
			{"HasTable missing", m.HasTable("nothing_here"), false},
			{"HasColumn Email", m.HasColumn(&Customer{}, "Email"), true},
			{"HasColumn deleted_at", m.HasColumn(&Customer{}, "deleted_at"), true},
			{"HasColumn missing", m.HasColumn(&Customer{}, "phone"), false},
			{"HasIndex by name", m.HasIndex(&Order{}, "idx_orders_customer_status"), true},
			{"HasIndex by field", m.HasIndex(&Customer{}, "Email"), true},
			{"HasIndex deleted_at", m.HasIndex(&Customer{}, "idx_customers_deleted_at"), true},
			{"HasIndex missing", m.HasIndex(&Order{}, "idx_nothing"), false},
			{"HasConstraint check", m.HasConstraint(&Item{}, "qty_positive"), true},
			{"HasConstraint foreign key", m.HasConstraint(&Order{}, "Items"), true},
			{"HasConstraint unique", m.HasConstraint(&Tag{}, "uni_tags_name"), true},
		} {
			t.Eq(c.got, c.want, c.what)
		}
		t.Eq(columns(t, m, &Order{}), []string{
			"id int8 - pk - 64 ", // GORM leaves out nextval defaults
			"customer_id int8 - - - 64 ",
			"status varchar - - - 20 new",
			"placed_at timestamptz null - - 64 ",
		}, "ColumnTypes of orders")
		idx, err := m.GetIndexes(&Order{})
		t.NoErr(err, "GetIndexes")
		var names []string
		for _, i := range idx {
			unique, _ := i.Unique()
			names = append(names, i.Name()+" "+strings.Join(i.Columns(), ",")+" "+yes(unique, "unique"))
		}
		slices.Sort(names)
		t.Eq(names, []string{"idx_orders_customer_status customer_id,status -"}, "indexes of orders (without the primary key)")
		t.NoErr(m.DropIndex(&Order{}, "idx_orders_customer_status"), "DropIndex")
		t.Eq(m.HasIndex(&Order{}, "idx_orders_customer_status"), false, "index dropped")
		t.NoErr(m.CreateIndex(&Order{}, "idx_orders_customer_status"), "CreateIndex")
		t.Eq(m.HasIndex(&Order{}, "idx_orders_customer_status"), true, "index created again")
	})

	check.Step("AutoMigrate of a changed model", func(t *check.T) {
		t.NoErr(db.AutoMigrate(&Note{}), "AutoMigrate Note")
		body := "kept"
		t.NoErr(db.Create(&[]Note{{Title: "one", Body: &body}, {Title: "two"}}).Error, "notes")
		t.NoErr(db.Model(&Note{}).Where("body IS NULL").Update("body", "").Error, "fill the NULL bodies")
		log.take()
		t.NoErr(db.AutoMigrate(&NoteV2{}), "AutoMigrate NoteV2")
		var alters int
		for _, sql := range log.take() {
			if strings.HasPrefix(sql, "ALTER TABLE") || strings.HasPrefix(sql, "CREATE INDEX") {
				alters++
			}
		}
		if alters == 0 {
			t.Fatalf("AutoMigrate of the changed model altered nothing")
		}
		t.Eq(columns(t, m, &NoteV2{}), []string{
			"id int8 - pk - 64 ",
			"title varchar - - - 120 ",
			"body text - - - 9223372036854775807 ",
			"priority int2 - - - 16 2",
			"code varchar null - - 10 ", // the unique tag went missing (see NoteV2)
		}, "ColumnTypes of notes")
		t.Eq(m.HasIndex(&NoteV2{}, "Priority"), true, "index on priority")
		var notes []NoteV2
		t.NoErr(db.Order("id").Find(&notes).Error, "Find")
		t.Eq([][2]any{{notes[0].Body, notes[0].Priority}, {notes[1].Body, notes[1].Priority}},
			[][2]any{{"kept", int16(2)}, {"", int16(2)}}, "rows after the change")
		t.NoErr(m.RenameColumn(&NoteV2{}, "code", "ref"), "RenameColumn")
		t.Eq([]bool{m.HasColumn(&NoteV2{}, "code"), m.HasColumn(&NoteV2{}, "ref")}, []bool{false, true}, "renamed")
		t.NoErr(m.DropColumn(&NoteV2{}, "ref"), "DropColumn")
		t.Eq(m.HasColumn(&NoteV2{}, "ref"), false, "dropped")
		t.NoErr(m.DropTable(&NoteV2{}), "DropTable")
	})

	day := func(d int) time.Time { return time.Date(2024, 3, d, 12, 0, 0, 0, time.UTC) }
	check.Step("create with associations", func(t *check.T) {
		tags := []Tag{{Name: "food"}, {Name: "fresh"}, {Name: "tools"}}
		t.NoErr(db.Create(&tags).Error, "tags")
		products := []Product{
			{SKU: "APL", Name: "apple", Cents: 50, Tags: tags[:2]},
			{SKU: "BRD", Name: "bread", Cents: 250, Tags: tags[:1]},
			{SKU: "HMR", Name: "hammer", Cents: 1500, Tags: tags[2:]},
		}
		t.NoErr(db.Create(&products).Error, "products with tags")
		customers := []Customer{
			{Name: "Ada", Email: "ada@example.com", Profile: &Profile{Bio: "first", Premium: true}, Orders: []Order{
				{Status: "paid", PlacedAt: day(1), Items: []Item{{ProductID: products[0].ID, Qty: 6}, {ProductID: products[1].ID, Qty: 1}}},
				{Status: "shipped", PlacedAt: day(3), Items: []Item{{ProductID: products[2].ID, Qty: 1}}},
			}},
			{Name: "Brian", Email: "brian@example.com", Orders: []Order{
				{PlacedAt: day(2), Items: []Item{{ProductID: products[1].ID, Qty: 2}}},
			}},
			{Name: "Cleo", Email: "cleo@example.com", Profile: &Profile{Bio: "quiet"}},
		}
		t.NoErr(db.Create(&customers).Error, "customers with profiles, orders and items")
		if customers[0].ID == 0 || customers[0].Orders[1].Items[0].ID == 0 {
			t.Fatalf("ids not filled in: %+v", customers[0])
		}
		var counts [4]int64
		for i, model := range []any{&Customer{}, &Order{}, &Item{}, &Profile{}} {
			t.NoErr(db.Model(model).Count(&counts[i]).Error, "count")
		}
		t.Eq(counts, [4]int64{3, 3, 4, 2}, "customers, orders, items, profiles")
		var status string
		t.NoErr(db.Model(&Order{}).Where("customer_id = ?", customers[1].ID).Pluck("status", &status).Error, "status")
		t.Eq(status, "new", "the column default, read back")
		t.Eq(db.Model(&products[0]).Association("Tags").Count(), int64(2), "many2many count")
	})

	check.Step("Preload", func(t *check.T) {
		var customers []Customer
		t.NoErr(db.Preload("Profile").Preload("Orders", func(db *gorm.DB) *gorm.DB { return db.Order("placed_at") }).
			Preload("Orders.Items.Product.Tags").Order("name").Find(&customers).Error, "Preload")
		var got []string
		for _, c := range customers {
			s := c.Name
			if c.Profile != nil {
				s += " (" + c.Profile.Bio + ")"
			}
			for _, o := range c.Orders {
				s += " " + o.Status + ":"
				for _, it := range o.Items {
					var tags []string
					for _, tg := range it.Product.Tags {
						tags = append(tags, tg.Name)
					}
					slices.Sort(tags)
					s += " " + itoa(it.Qty) + "x" + it.Product.Name + "[" + strings.Join(tags, ",") + "]"
				}
			}
			got = append(got, s)
		}
		t.Eq(got, []string{
			"Ada (first) paid: 6xapple[food,fresh] 1xbread[food] shipped: 1xhammer[tools]",
			"Brian new: 2xbread[food]",
			"Cleo (quiet)",
		}, "customers preloaded")
		var orders []Order
		t.NoErr(db.Joins("Customer").Where(`"Customer".name = ?`, "Brian").Find(&orders).Error, "Joins")
		t.Eq(len(orders), 1, "orders joined to Brian")
		t.Eq(orders[0].Customer.Email, "brian@example.com", "joined customer")
	})

	check.Step("queries", func(t *check.T) {
		names := func(q *gorm.DB) []string {
			var out []string
			t.NoErr(q.Model(&Product{}).Order("name").Pluck("name", &out).Error, "Pluck")
			return out
		}
		t.Eq(names(db.Where("cents > ?", 100)), []string{"bread", "hammer"}, "Where")
		t.Eq(names(db.Where("sku IN ?", []string{"APL", "HMR"})), []string{"apple", "hammer"}, "IN")
		t.Eq(names(db.Where("name LIKE ?", "%a%").Not("sku = ?", "HMR")), []string{"apple", "bread"}, "LIKE and Not")
		t.Eq(names(db.Where(&Product{Cents: 50}).Or("cents >= ?", 1000)), []string{"apple", "hammer"}, "struct and Or")
		t.Eq(names(db.Where("id IN (?)", db.Table("items").Select("product_id").Where("qty > ?", 1))),
			[]string{"apple", "bread"}, "subquery")
		type spend struct {
			Name  string
			Cents int64
		}
		var spends []spend
		t.NoErr(db.Table("customers c").Select("c.name, sum(i.qty * p.cents) AS cents").
			Joins("JOIN orders o ON o.customer_id = c.id").Joins("JOIN items i ON i.order_id = o.id").
			Joins("JOIN products p ON p.id = i.product_id").Group("c.name").Having("sum(i.qty * p.cents) > ?", 100).
			Order("cents DESC").Scan(&spends).Error, "joins, group and having")
		t.Eq(spends, []spend{{"Ada", 2050}, {"Brian", 500}}, "spend per customer")
		var page []Product
		t.NoErr(db.Order("cents DESC").Limit(2).Offset(1).Find(&page).Error, "page")
		t.Eq([]string{page[0].SKU, page[1].SKU}, []string{"BRD", "APL"}, "second and third by price")
		var first Customer
		t.NoErr(db.First(&first, "email = ?", "cleo@example.com").Error, "First")
		t.Eq(first.Name, "Cleo", "First")
		err := db.First(&Customer{}, "email = ?", "nobody@example.com").Error
		t.Eq(errors.Is(err, gorm.ErrRecordNotFound), true, "ErrRecordNotFound")
	})

	check.Step("update, upsert and soft delete", func(t *check.T) {
		t.NoErr(db.Model(&Product{}).Where("sku = ?", "BRD").Update("cents", gorm.Expr("cents + ?", 25)).Error, "Update")
		res := db.Model(&Order{}).Where("status = ?", "new").Updates(map[string]any{"status": "paid"})
		t.NoErr(res.Error, "Updates")
		t.Eq(res.RowsAffected, int64(1), "rows updated")
		t.NoErr(db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "sku"}}, DoUpdates: clause.AssignmentColumns([]string{"cents"})}).
			Create(&Product{SKU: "APL", Name: "apple", Cents: 60}).Error, "upsert")
		var prices []int64
		t.NoErr(db.Model(&Product{}).Order("sku").Pluck("cents", &prices).Error, "prices")
		t.Eq(prices, []int64{60, 275, 1500}, "prices after update and upsert")
		var cleo Customer
		t.NoErr(db.Where("name = ?", "Cleo").First(&cleo).Error, "Cleo")
		t.NoErr(db.Delete(&cleo).Error, "soft delete")
		var n, all int64
		t.NoErr(db.Model(&Customer{}).Count(&n).Error, "count")
		t.NoErr(db.Unscoped().Model(&Customer{}).Count(&all).Error, "Unscoped count")
		t.Eq([2]int64{n, all}, [2]int64{2, 3}, "visible and all customers")
		var got Customer
		t.NoErr(db.FirstOrCreate(&got, Customer{Name: "Dora", Email: "dora@example.com"}).Error, "FirstOrCreate")
		if got.ID == 0 {
			t.Fatalf("FirstOrCreate made no row")
		}
	})

	check.Step("rollback and savepoint", func(t *check.T) {
		errAbort := errors.New("abort")
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Create(&Tag{Name: "gone"}).Error; err != nil {
				return err
			}
			return errAbort
		})
		t.Eq(err, errAbort, "Transaction's error")
		var n int64
		t.NoErr(db.Model(&Tag{}).Where("name = ?", "gone").Count(&n).Error, "count")
		t.Eq(n, int64(0), "rolled back")
		t.NoErr(db.Transaction(func(tx *gorm.DB) error {
			tx.Create(&Tag{Name: "kept"})
			tx.SavePoint("sp1")
			tx.Create(&Tag{Name: "dropped"})
			return tx.RollbackTo("sp1").Error
		}), "Transaction with a savepoint")
		var names []string
		t.NoErr(db.Model(&Tag{}).Where("name IN ?", []string{"kept", "dropped"}).Pluck("name", &names).Error, "names")
		t.Eq(names, []string{"kept"}, "after RollbackTo")
	})

	check.Step("integrity errors", func(t *check.T) {
		err := db.Create(&Customer{Name: "Ada again", Email: "ada@example.com"}).Error
		t.Eq(errors.Is(err, gorm.ErrDuplicatedKey), true, "duplicate email is ErrDuplicatedKey: "+check.ErrString(err))
		err = db.Create(&Item{OrderID: 999999, ProductID: 1, Qty: 1}).Error
		t.Eq(errors.Is(err, gorm.ErrForeignKeyViolated), true, "missing order is ErrForeignKeyViolated: "+check.ErrString(err))
		err = db.Create(&Item{OrderID: 1, ProductID: 1, Qty: 0}).Error
		t.Eq(errors.Is(err, gorm.ErrCheckConstraintViolated), true, "qty 0 is ErrCheckConstraintViolated: "+check.ErrString(err))
		var n int64
		t.NoErr(db.Model(&Customer{}).Count(&n).Error, "still usable")
		t.Eq(n, int64(3), "customers")
	})

	check.Step("DropTable", func(t *check.T) {
		t.NoErr(m.DropTable("product_tags", &Item{}, &Order{}, &Profile{}, &Customer{}, &Tag{}, &Product{}), "DropTable")
		tables, err := m.GetTables()
		t.NoErr(err, "GetTables")
		t.Eq(len(tables), 0, "tables left")
	})
	check.Finish()
}

// columns describes the columns of model's table as the Migrator's
// ColumnTypes has them: name, type, null, pk, unique, length and default.
func columns(t *check.T, m gorm.Migrator, model any) []string {
	cols, err := m.ColumnTypes(model)
	t.NoErr(err, "ColumnTypes")
	var desc []string
	for _, c := range cols {
		null, _ := c.Nullable()
		pk, _ := c.PrimaryKey()
		unique, _ := c.Unique()
		length, _ := c.Length()
		def, _ := c.DefaultValue()
		desc = append(desc, strings.Join([]string{c.Name(), c.DatabaseTypeName(), yes(null, "null"),
			yes(pk, "pk"), yes(unique, "unique"), itoa(length), def}, " "))
	}
	return desc
}

func yes(b bool, word string) string {
	if b {
		return word
	}
	return "-"
}

func itoa[N int | int64](n N) string { return strconv.FormatInt(int64(n), 10) }
