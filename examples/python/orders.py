#!/usr/bin/env python3
"""Orders from Python, through ShardQ's SQL functions: no JVM, no broker client, only psycopg.

It talks to the order service (examples/order-service, Spring and JMS) through the same queues:
it sends orders ("id,item,quantity", a text message) to the queue `orders`, which the service's
@JmsListener takes, and receives the service's `accepted <id>` events from the queue
`order-events`. Each receive is a transaction of this program's own: a message is consumed when it
commits, and given back (its delivery count raised) when it rolls back.

  python3 orders.py setup                  # create the two queues (the shardq schema's owner may)
  python3 orders.py place o-7 widget 2     # send the order, then wait for its event
  python3 orders.py send o-8 gadget 1      # send only
  python3 orders.py events --wait 5        # print (and consume) the events that come within 5 s

Where: the usual libpq settings (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD) or --dsn.
Needs psycopg2 (Debian: apt-get install python3-psycopg2).
"""
import argparse
import sys

import psycopg2

ORDERS = "orders"
EVENTS = "order-events"


def setup(conn):
    """Creates the two queues unless they exist (the shardq schema's owner may; others are refused
    with SQLSTATE 42501, and an administrator creates them: ./shardq queue create orders)."""
    with conn, conn.cursor() as cur:
        for name in (ORDERS, EVENTS):
            cur.execute("SELECT shardq.create_queue(%s, if_not_exists => true)", (name,))


def send(conn, order_id, item, quantity):
    """Sends one order; it exists for the service exactly when this transaction commits."""
    with conn, conn.cursor() as cur:
        cur.execute(
            "SELECT shardq.send(%s, %s::text, properties => %s::jsonb)",
            (ORDERS, f"{order_id},{item},{quantity}", '{"source": "python"}'),
        )
        return cur.fetchone()[0]


def events(conn, wait_seconds, order_id=None, limit=100):
    """Receives events (those of order_id only, when given: a JMS selector evaluated in
    PostgreSQL), consumed when the transaction commits."""
    selector = None
    if order_id is not None:
        selector = "orderId = '" + order_id.replace("'", "''") + "'"  # a selector literal, passed as a parameter
    with conn, conn.cursor() as cur:
        cur.execute(
            "SELECT message_id, body_text, properties, delivery_count"
            "  FROM shardq.receive(%s, %s, wait => make_interval(secs => %s), selector => %s)",
            (EVENTS, limit, wait_seconds, selector),
        )
        return cur.fetchall()


def main(argv):
    parser = argparse.ArgumentParser(description="Orders from Python through ShardQ's SQL functions")
    parser.add_argument("--dsn", default="", help="a libpq connection string (default: the PG* variables)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("send", "place"):
        p = sub.add_parser(name)
        p.add_argument("id")
        p.add_argument("item")
        p.add_argument("quantity", type=int)
    sub.add_parser("setup")
    p = sub.add_parser("events")
    p.add_argument("--wait", type=float, default=0)
    p.add_argument("--order", default=None)
    args = parser.parse_args(argv)
    conn = psycopg2.connect(args.dsn)
    try:
        if args.command == "setup":
            setup(conn)
            print(f"queues {ORDERS} and {EVENTS} are there")
            return 0
        if args.command in ("send", "place"):
            message_id = send(conn, args.id, args.item, args.quantity)
            print(f"sent {args.id} as {message_id}")
            if args.command == "send":
                return 0
            rows = events(conn, 60, order_id=args.id, limit=1)
            if not rows:
                print(f"no event for {args.id} within 60 s", file=sys.stderr)
                return 1
            for message_id, body, properties, count in rows:
                print(body)
            return 0
        for message_id, body, properties, count in events(conn, args.wait, order_id=args.order):
            print(f"{body}  ({message_id}, delivery {count}, {properties})")
        return 0
    except psycopg2.Error as e:
        print(f"orders.py: {e.pgcode}: {e.pgerror.strip() if e.pgerror else e}", file=sys.stderr)
        return 2
    finally:
        conn.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
