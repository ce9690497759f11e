-- Connection churn for sysbench: every event connects, runs a few point
-- selects on sysbench's oltp tables and disconnects, so that a server
-- with one thread per connection and no thread cache creates and ends a
-- thread per event (a thread per short task, inside a real server).

sysbench.cmdline.options = {
   tables = {"Number of tables", 1},
   table_size = {"Number of rows per table", 10000},
   queries = {"Point selects per connection", 4},
}

function thread_init()
   drv = sysbench.sql.driver()
end

function event()
   local con = drv:connect()
   for i = 1, sysbench.opt.queries do
      con:query(string.format("SELECT c FROM sbtest%d WHERE id = %d",
                              sysbench.rand.uniform(1, sysbench.opt.tables),
                              sysbench.rand.default(1, sysbench.opt.table_size)))
   end
   con:disconnect()
end
