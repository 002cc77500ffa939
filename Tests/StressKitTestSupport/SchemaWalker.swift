import Foundation

/// Walks a decoded JSON value along a JSON Schema and lists object keys the
/// schema does not describe (enough of JSON Schema for our own file: $ref to
/// $defs, anyOf, properties, additionalProperties, items).
package struct SchemaWalker {
    package let root: [String: Any]

    package init(root: [String: Any]) { self.root = root }

    package func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let ref = schema["$ref"] as? String, ref.hasPrefix("#/$defs/") else { return schema }
        let defs = root["$defs"] as? [String: Any] ?? [:]
        return resolve(defs[String(ref.dropFirst("#/$defs/".count))] as? [String: Any] ?? [:])
    }

    package func check(_ value: Any, against schemaIn: [String: Any], at path: String, missing: inout [String]) {
        let schema = resolve(schemaIn)
        if let branches = schema["anyOf"] as? [[String: Any]] {
            let kind = value is [String: Any] ? "object" : (value is [Any] ? "array" : "")
            if let branch = branches.map(resolve).first(where: { ($0["type"] as? String) == kind }) {
                check(value, against: branch, at: path, missing: &missing)
            }
            return
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, child) in object {
                if let p = properties[key] as? [String: Any] {
                    check(child, against: p, at: "\(path)/\(key)", missing: &missing)
                } else if let extra = schema["additionalProperties"] as? [String: Any] {
                    check(child, against: extra, at: "\(path)/\(key)", missing: &missing)
                } else {
                    missing.append("\(path)/\(key)")
                }
            }
        } else if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (i, element) in array.enumerated() { check(element, against: items, at: "\(path)/\(i)", missing: &missing) }
        }
    }
}
