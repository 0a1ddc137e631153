-- A realistic application migration: schemas, extensions, enums, tables,
-- views, SQL and PL/pgSQL functions, triggers, a DO block with dynamic
-- SQL, and an advisory lock around it all, as migration tools take one.
SELECT pg_advisory_lock(72707369);

CREATE SCHEMA IF NOT EXISTS app;
CREATE SCHEMA IF NOT EXISTS audit;
CREATE SCHEMA scratch;
CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE EXTENSION IF NOT EXISTS "uuid-ossp";
CREATE EXTENSION IF NOT EXISTS citext;

CREATE TYPE app.order_status AS ENUM ('pending', 'paid', 'shipped', 'cancelled');

CREATE TABLE app.users (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email citext NOT NULL UNIQUE,
    name text NOT NULL,
    password_hash text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE app.orders (
    id bigserial PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES app.users (id) ON DELETE CASCADE,
    status app.order_status NOT NULL DEFAULT 'pending',
    total_cents integer NOT NULL CHECK (total_cents >= 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_user_status ON app.orders (user_id, status);

CREATE TABLE audit.log (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    table_name text NOT NULL,
    op text NOT NULL,
    row_data jsonb,
    at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION app.set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := now();
    RETURN NEW;
END
$$;

CREATE FUNCTION audit.record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO audit.log (table_name, op, row_data) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, TG_OP, to_jsonb(OLD));
        RETURN OLD;
    END IF;
    INSERT INTO audit.log (table_name, op, row_data) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, TG_OP, to_jsonb(NEW));
    RETURN NEW;
END
$$;

CREATE TRIGGER users_updated_at BEFORE UPDATE ON app.users FOR EACH ROW EXECUTE FUNCTION app.set_updated_at();
CREATE TRIGGER orders_updated_at BEFORE UPDATE ON app.orders FOR EACH ROW EXECUTE FUNCTION app.set_updated_at();
CREATE TRIGGER orders_audit AFTER INSERT OR UPDATE OR DELETE ON app.orders FOR EACH ROW EXECUTE FUNCTION audit.record();

CREATE FUNCTION app.cents_to_text(cents integer) RETURNS text LANGUAGE sql IMMUTABLE STRICT
    AS $$ SELECT to_char(cents / 100.0, 'FM999999990.00') $$;

CREATE FUNCTION app.user_totals(min_cents integer DEFAULT 0)
    RETURNS TABLE (email citext, orders bigint, total text) LANGUAGE sql STABLE AS $$
    SELECT u.email, count(o.id), app.cents_to_text(coalesce(sum(o.total_cents), 0)::integer)
    FROM app.users u LEFT JOIN app.orders o ON o.user_id = u.id
    GROUP BY u.email
    HAVING coalesce(sum(o.total_cents), 0) >= min_cents
    ORDER BY u.email
$$;

CREATE FUNCTION app.register(p_email text, p_name text, p_password text) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
    new_id uuid;
BEGIN
    INSERT INTO app.users (email, name, password_hash)
        VALUES (p_email, p_name, crypt(p_password, gen_salt('bf', 4)))
        RETURNING id INTO new_id;
    RETURN new_id;
EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'email % is taken', p_email USING ERRCODE = 'unique_violation', HINT = 'Log in instead.';
END
$$;

CREATE FUNCTION app.place_order(p_email text, p_cents integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    uid uuid;
    oid_ bigint;
BEGIN
    SELECT id INTO STRICT uid FROM app.users WHERE email = p_email::citext;
    INSERT INTO app.orders (user_id, total_cents) VALUES (uid, p_cents) RETURNING id INTO oid_;
    RETURN oid_;
EXCEPTION WHEN no_data_found THEN
    RAISE EXCEPTION 'no user %', p_email;
END
$$;

CREATE FUNCTION app.pending_ids() RETURNS SETOF bigint LANGUAGE plpgsql STABLE AS $$
DECLARE r record;
BEGIN
    FOR r IN SELECT id FROM app.orders WHERE status = 'pending' ORDER BY id LOOP
        RETURN NEXT r.id;
    END LOOP;
END
$$;

CREATE PROCEDURE app.mark_paid(p_id bigint) LANGUAGE plpgsql AS $$
BEGIN
    UPDATE app.orders SET status = 'paid' WHERE id = p_id;
    IF NOT FOUND THEN
        RAISE NOTICE 'order % not found', p_id;
    END IF;
END
$$;

COMMENT ON FUNCTION app.register(text, text, text) IS 'signs a user up';
COMMENT ON PROCEDURE app.mark_paid IS 'marks an order paid';

CREATE VIEW app.order_summary AS
    SELECT o.id, u.email, o.status, app.cents_to_text(o.total_cents) AS total
    FROM app.orders o JOIN app.users u ON u.id = o.user_id;

-- The view takes status changes through an INSTEAD OF trigger.
CREATE FUNCTION app.order_summary_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE app.orders SET status = NEW.status WHERE id = OLD.id;
    RETURN NEW;
END
$$;
CREATE TRIGGER order_summary_write INSTEAD OF UPDATE ON app.order_summary
    FOR EACH ROW EXECUTE FUNCTION app.order_summary_write();

-- Seed data through the functions.
SELECT app.register('Ann@Example.com', 'Ann', 'secret') IS NOT NULL AS registered;
SELECT app.register('bob@example.com', 'Bob', 'hunter2') IS NOT NULL AS registered;
SELECT app.place_order('ann@example.com', 1250) > 0 AS placed;
SELECT app.place_order('ANN@example.com', 999) > 0 AS placed;
SELECT app.place_order('bob@example.com', 4000) > 0 AS placed;
CALL app.mark_paid(1);
CALL app.mark_paid(-1);
UPDATE app.order_summary SET status = 'shipped' WHERE email = 'bob@example.com' RETURNING email, status;

-- A DO block with dynamic SQL, as Sequelize and hand-written migrations use.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['app.users', 'app.orders'] LOOP
        EXECUTE format('COMMENT ON TABLE %s IS %L', t, 'managed by the migration');
    END LOOP;
    BEGIN
        CREATE TYPE app.order_status AS ENUM ('x');
    EXCEPTION WHEN duplicate_object THEN
        RAISE NOTICE 'type app.order_status exists';
    END;
END
$$;

-- The checks a migration tool's tests would run.
SELECT * FROM app.user_totals();
SELECT * FROM app.user_totals(3000);
SELECT count(*) AS pending FROM app.pending_ids();
SELECT email, status, total FROM app.order_summary ORDER BY total;
SELECT table_name, op, row_data->>'status' AS status FROM audit.log ORDER BY id;
SELECT password_hash = crypt('secret', password_hash) AS password_ok FROM app.users WHERE email = 'ann@example.com';
SELECT count(*) FROM app.users WHERE updated_at >= created_at;

-- DROP SCHEMA ... CASCADE of a schema the migration no longer wants.
CREATE TABLE scratch.tmp (a int);
CREATE FUNCTION scratch.f() RETURNS int LANGUAGE sql AS 'SELECT 1';
DROP SCHEMA scratch CASCADE;

SELECT pg_advisory_unlock(72707369);
