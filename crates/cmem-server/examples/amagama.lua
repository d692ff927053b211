-- wrk's request script for the amaGama unit route: each connection asks the paths of a
-- file in turn, from a place of its own (docs/performance.md, "A shared memory").
--
--   python3 -c 'import json, sys, urllib.parse
--   for l in sys.stdin: print("/tmserver/en/de/unit/" + urllib.parse.quote(json.loads(l)["query"], safe="-._~"))' \
--       < queries.jsonl > paths.txt
--   wrk -t2 -c32 -d10s --latency -s crates/cmem-server/examples/amagama.lua URL -- paths.txt

local paths = {}
local i = 0

function init(args)
  for line in io.lines(args[1]) do
    paths[#paths + 1] = line
  end
  i = math.random(#paths)
end

function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
